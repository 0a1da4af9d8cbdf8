"""What a plan and a run are: the pydantic models of the plan format and of the records a run writes.

Pure data: no file is read here and no browser is imported, so every other layer can share these types.
"""
