"""The step rules' own pieces: what a step holds, read once (``index``), and rule INPUTS' table of keys (``inputs``)."""
