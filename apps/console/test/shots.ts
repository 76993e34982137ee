/**
 * `pnpm console:shots` (decision 0070): screenshots of every page of both consoles at 390 and 1366 px, over the
 * layout suite's data (./layout-seed: the real API on PGlite, 500-character unbroken strings in every row), into
 * apps/console/shots/<scheme>/ (git-ignored). `--color-schemes light,dark` emulates `prefers-color-scheme` for
 * each scheme named (default: both, so the dark theme shows there as soon as the stylesheet has one);
 * `--widths 390,1366` picks the widths. Needs the built console (the root script builds it first).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { startTestApi } from "@tollgate/api/testing";
import { assertBuilt, CHROMIUM, DIST, hasChromium, launch } from "./browser";
import { walkConsoles } from "./console-pages";
import { seedLayoutData } from "./layout-seed";

const SCHEMES = ["light", "dark", "no-preference"] as const;
type Scheme = (typeof SCHEMES)[number];

const { values } = parseArgs({
  options: {
    "color-schemes": { type: "string", default: "light,dark" },
    widths: { type: "string", default: "390,1366" },
  },
});
const schemes = String(values["color-schemes"])
  .split(",")
  .map((scheme) => scheme.trim())
  .filter(Boolean);
for (const scheme of schemes) {
  if (!SCHEMES.includes(scheme as Scheme))
    throw new Error(`--color-schemes: ${scheme} is not one of ${SCHEMES.join(", ")}`);
}
const widths = String(values.widths)
  .split(",")
  .map((width) => Number(width.trim()));
if (widths.some((width) => !Number.isInteger(width) || width < 200 || width > 4000))
  throw new Error("--widths: whole numbers of pixels between 200 and 4000, comma-separated");
if (!hasChromium) throw new Error(`${CHROMIUM} is missing: install Debian's chromium`);
assertBuilt();

const MENU_PAGES = ["operator-overview", "merchant-dashboard"];
const OUT = resolve(import.meta.dirname, "..", "shots");
const started = performance.now();
rmSync(OUT, { recursive: true, force: true });
const api = await startTestApi("pglite", { SERVE_CONSOLE: "true", CONSOLE_DIST: DIST });
const browser = await launch();
let files = 0;
try {
  const seed = await seedLayoutData(api);
  for (const scheme of schemes) {
    const folder = join(OUT, scheme);
    mkdirSync(folder, { recursive: true });
    await browser.page.emulateMedia({ colorScheme: scheme as Scheme });
    await walkConsoles(browser.page, api.baseUrl, seed, async (name) => {
      for (const width of widths) {
        await browser.page.setViewportSize({ width, height: width < 700 ? 844 : 900 });
        await browser.page.screenshot({ path: join(folder, `${name}-${width}.png`), fullPage: true });
        files += 1;
        // The first signed-in page of each console also shows its narrow-screen menu open.
        const toggle = browser.page.getByTestId("menu-toggle");
        if (MENU_PAGES.includes(name) && (await toggle.isVisible())) {
          await toggle.click();
          await browser.page.screenshot({ path: join(folder, `${name}-${width}-menu.png`) });
          await browser.page.keyboard.press("Escape");
          files += 1;
        }
      }
    });
  }
} finally {
  await browser.close();
  await api.close();
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `${files} screenshots (${schemes.join(", ")} at ${widths.join(", ")} px) in ${relative(process.cwd(), OUT) || "."}/ (${OUT}), ${seconds} s`,
);
