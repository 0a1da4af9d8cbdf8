"""``cometlocal targets``: open a page as a plan would, and list what a plan can target on it."""
