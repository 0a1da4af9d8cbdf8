"""The codegen reader: a recorded Playwright script read statement by statement (parse), its calls mapped to
steps (map, steps, targets) by family (http, pages, settings, input, state, looks)."""
