import { describe, expect, it, vi } from "vitest";
import { allPages, csvCell, toCsv } from "./csv";

describe("csv", () => {
  it("quotes per RFC 4180: commas, quotes and line breaks; CRLF line ends", () => {
    expect(csvCell('say "hi", then\nleave')).toBe('"say ""hi"", then\nleave"');
    expect(csvCell(null)).toBe("");
    expect(csvCell(12n)).toBe("12");
    expect(toCsv(["a", "b"], [["1", "x,y"]])).toBe('a,b\r\n1,"x,y"\r\n');
  });

  it("neutralises cells a spreadsheet would run as formulas (= + - @ TAB CR)", () => {
    expect(csvCell('=HYPERLINK("http://evil.example","x")')).toBe(
      `"'=HYPERLINK(""http://evil.example"",""x"")"`,
    );
    for (const lead of ["+1", "-1", "@SUM(A1)", "\tx"]) expect(csvCell(lead)).toBe(`'${lead}`);
    expect(csvCell("\r=1")).toBe(`"'\r=1"`);
    expect(csvCell("a=b")).toBe("a=b");
  });

  it("allPages reads every page of the filter, following cursors, not just the first", async () => {
    const load = vi.fn(async ({ cursor }: { cursor?: string }) =>
      cursor === undefined
        ? { rows: [1, 2], next: "c2" }
        : cursor === "c2"
          ? { rows: [3, 4], next: "c3" }
          : { rows: [5], next: null },
    );
    expect(await allPages(load)).toEqual([1, 2, 3, 4, 5]);
    expect(load.mock.calls.map(([page]) => page)).toEqual([{}, { cursor: "c2" }, { cursor: "c3" }]);
  });

  it("allPages refuses to save a silently cut file past its page bound", async () => {
    await expect(allPages(async () => ({ rows: [1], next: "again" }), 3)).rejects.toThrow(/after 3 pages/);
  });
});
