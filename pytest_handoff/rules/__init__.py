"""The rules every format shares, and how a code is decided: rows, core (HF/HS/HX), secrets, selection,
modes (the failure-mode taxonomy), text, evidence/."""
