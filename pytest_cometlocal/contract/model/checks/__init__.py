"""The args of the condition kinds by family, beside the union in ../conditions.py: audits (pictures,
accessibility), element looks, the number keys, the page's traffic, the browser's state."""
