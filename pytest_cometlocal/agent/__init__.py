"""The executor for an agent planner, over MCP (``cometlocal mcp``; the optional extra ``mcp``).

The agent proposes steps; the executor validates and runs each one with the
same guard, trace and evidence as under pytest, and the steps that passed
become a plan file. ``server`` is the only module that imports the MCP SDK.
"""
