import { describe, expect, it } from "vitest";
import { nextSection, sectionOf } from "./merchantSession";

describe("merchant console places", () => {
  it("a path names a section only when it is one", () => {
    expect(sectionOf("/gateway")).toBe("gateway");
    expect(sectionOf("/profile/")).toBe("profile");
    expect(sectionOf("/")).toBeUndefined();
    expect(sectionOf("/signin")).toBeUndefined();
    expect(sectionOf("/admin")).toBeUndefined();
  });

  it("security: `next` after sign-in is a known section, never another site or path", () => {
    expect(nextSection("?next=%2Fwebhooks")).toBe("webhooks");
    for (const search of [
      "",
      "?next=https%3A%2F%2Fevil.example%2F",
      "?next=%2F%2Fevil.example",
      "?next=%2Fconsole%2Fadmin",
      "?next=javascript%3Aalert(1)",
      "?next=%2Fgateway%2F..%2F..%2Fdocs",
    ]) {
      expect(nextSection(search), search).toBeUndefined();
    }
  });
});
