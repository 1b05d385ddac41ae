"""What may be indexed, searched, shown or injected (`decide`), with the checks of what an
atom says (`content`): low enough that the index, the checks and the site all reach it."""

from __future__ import annotations
