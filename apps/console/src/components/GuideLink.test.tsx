import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { guideUrl, SECTION_GUIDES } from "../lib/docs";
import { SECTIONS } from "../shell/merchantSession";
import { GuideLink } from "./GuideLink";

describe("GuideLink", () => {
  it("links the guide under the configured docs base, and the API reference", () => {
    render(<GuideLink file="webhooks.md" base="https://git.example/tollgate/blob/main/docs/" testId="g" />);
    const guide = screen.getByTestId("g-guide");
    expect(guide.getAttribute("href")).toBe("https://git.example/tollgate/blob/main/docs/webhooks.md");
    expect(guide.getAttribute("rel")).toBe("noreferrer");
    expect(screen.getByTestId("g-reference").getAttribute("href")).toBe("/docs");
  });

  it("without a base (or a base that is not http(s)) names the file and links nowhere else", () => {
    for (const base of [undefined, "", "javascript:alert(1)"]) {
      const { unmount } = render(<GuideLink file="gateway.md" base={base} testId="g" />);
      const guide = screen.getByTestId("g-guide");
      expect(guide.tagName).toBe("CODE");
      expect(guide.textContent).toBe("docs/gateway.md");
      expect(screen.getByTestId("g").textContent).toContain("in the Tollgate repository");
      unmount();
    }
    expect(guideUrl("x.md", " http://docs.local/ ")).toBe("http://docs.local/x.md");
  });

  it("every merchant section has a guide, and it exists in docs/", () => {
    const docs = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "..", "docs");
    for (const [section] of SECTIONS) {
      expect(SECTION_GUIDES[section]).toMatch(/^[a-z-]+\.md$/);
      expect(existsSync(join(docs, SECTION_GUIDES[section])), SECTION_GUIDES[section]).toBe(true);
    }
  });
});
