// Marks the target's one element for accessibility_clean (executor/audits/accessibility.py): a random
// attribute the isolated world finds and removes at once. Runs in the page's world, through the locator.
(el, name) => { el.setAttribute(name, ""); }
