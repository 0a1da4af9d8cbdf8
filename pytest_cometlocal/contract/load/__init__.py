"""Reading plan files: the safe YAML loader, step groups, suite configs, paths and interpolation.

What a file holds becomes a tree that remembers every position, so validation can point at the line.
"""
