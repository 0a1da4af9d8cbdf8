// Allure 3 configuration for a pytest-cometlocal suite: one category per error code.
//
// Allure 3 (npm package `allure`) reads its categories from this file, not from the
// categories.json the plugin writes into the results folder (that file is for Allure 2).
// Copy it as allurerc.mjs next to where you run Allure, then:
//
//   pytest plans/ --alluredir allure-results
//   npx allure generate allure-results -o allure-report    (or: --config path/to/allurerc.mjs)
//
// The rules match what categories.json matches: an executor failure's message starts with
// its code (TARGET_NOT_FOUND: at step 'x' ...), an expected error that was not raised starts
// with "expected", a fault of the plugin or the infrastructure is *broken*. A plan that passed
// only after a retry or a recovery is flaky (statusDetails.flaky) and gets its own category.
// Nothing is imported, so the file works with `npx allure` without a local install.

// Every code of pytest_cometlocal.contract.model.codes.ErrorCode (tests/plugin/test_allure_render.py checks the list).
const ERROR_CODES = [
  "TARGET_NOT_FOUND",
  "TARGET_NOT_UNIQUE",
  "INVALID_ACTIONSPEC",
  "PRECONDITION_FAILED",
  "POSTCONDITION_FAILED",
  "POLICY_HALT",
  "DOMAIN_BLOCKED",
  "ACTION_CRITICAL_BLOCKED",
  "NAVIGATION_TIMEOUT",
  "UPLOAD_FAILED",
  "DOWNLOAD_FAILED",
  "OVERLAY_BLOCKING",
  "AUTH_FAILED",
  "NAVIGATION_FAILED",
  "BROWSER_CRASHED",
  "PAGE_UNRESPONSIVE",
  "OUTPUT_WRITE_FAILED",
  "EXTENSION_FAILED",
];

export default {
  name: "cometlocal plans",
  output: "./allure-report",
  categories: {
    rules: [
      ...ERROR_CODES.map((code) => ({
        name: code,
        matchers: { statuses: ["failed"], message: new RegExp(`^${code}\\b`) },
      })),
      { name: "expected error not raised", matchers: { statuses: ["failed"], message: /^expected / } },
      { name: "plugin or infrastructure fault", matchers: { statuses: ["broken"] } },
      { name: "passed after retries or recovery (flaky)", matchers: { statuses: ["passed"], flaky: true } },
    ],
  },
  plugins: {
    awesome: { options: { reportLanguage: "en" } },
  },
};
