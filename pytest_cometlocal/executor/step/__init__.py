"""One step's story: its target, conditions, action, looks, evidence, budget and typed failure.
"""
