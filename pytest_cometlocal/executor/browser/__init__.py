"""The browser and its boundary: launching or reaching Chromium, the network guard, channels and saved storage states.
"""
