// Headless Firefox for the page tests (not a test file itself). Playwright cannot drive a stock
// Firefox (it needs its own patched build, which cannot be downloaded here), so this uses
// geckodriver's WebDriver through the `selenium-webdriver` package, with Debian's firefox-esr
// and the geckodriver that `cargo install geckodriver` builds (scripts/setup.sh installs both).
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const candidates = (env, paths) => [process.env[env], ...paths].filter(Boolean);
export const FIREFOX = candidates("FIREFOX", ["/usr/bin/firefox-esr", "/usr/bin/firefox"]).find((p) => existsSync(p)) ?? null;
export const GECKODRIVER = candidates("GECKODRIVER", [join(homedir(), ".cargo", "bin", "geckodriver"), "/usr/local/bin/geckodriver", "/usr/bin/geckodriver"])
  .find((p) => existsSync(p)) ?? null;

/** Launch headless Firefox once for a test file; returns the driver (call `quit()` in `after`). */
export async function launchFirefox() {
  assert.ok(FIREFOX, "Firefox is not installed: scripts/setup.sh test installs firefox-esr");
  assert.ok(GECKODRIVER, "geckodriver is not installed: scripts/setup.sh test runs cargo install geckodriver");
  const { Builder } = await import("selenium-webdriver");
  const firefox = await import("selenium-webdriver/firefox.js");
  const options = new firefox.Options().setBinary(FIREFOX).addArguments("-headless");
  // No network beyond loopback: nothing to update, report or fetch at start-up.
  for (const [key, value] of Object.entries({
    "app.update.enabled": false, "browser.shell.checkDefaultBrowser": false, "datareporting.policy.dataSubmissionEnabled": false,
    "toolkit.telemetry.enabled": false, "network.captive-portal-service.enabled": false, "browser.safebrowsing.malware.enabled": false,
    "browser.safebrowsing.phishing.enabled": false, "extensions.update.enabled": false, "network.connectivity-service.enabled": false,
  })) options.setPreference(key, value);
  const service = new firefox.ServiceBuilder(GECKODRIVER);
  return new Builder().forBrowser("firefox").setFirefoxOptions(options).setFirefoxService(service).build();
}

/**
 * Open `url` in Firefox, wait until the page sets `window.__result` (or `window.__error`), and
 * return it. Pages report their own uncaught errors and rejections into `__error` (classic
 * WebDriver has no console log for Firefox), so those fail the test too.
 */
export async function firefoxPageResult(driver, url, timeoutMs = 30_000) {
  await driver.get(url);
  await driver.wait(async () => driver.executeScript("return '__result' in window || '__error' in window"), timeoutMs, `${url}: no result`);
  const { result, error } = await driver.executeScript("return { result: window.__result, error: window.__error }");
  assert.equal(error ?? undefined, undefined, `${url}: ${error}`);
  return result;
}
