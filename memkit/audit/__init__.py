"""The conflict audit: do incoming atoms duplicate, extend or contradict what is there?"""

from __future__ import annotations
