"""The hint harness as CI meets it (`tests/hints/cases.py`): each finding code that
suggests a command, followed to a clean state."""

from __future__ import annotations

from tests.hints.cases import role_tests

made, test_the_printed_command_leads_to_a_clean_state = role_tests("CI")
