import { describe, expect, it } from "vitest";
import { csvCell, csvOf, toCsv } from "./csv-export";

describe("csv", () => {
  it("happy: plain cells pass through; rows end with CRLF", () => {
    expect(
      toCsv(
        ["a", "b"],
        [
          ["1", 2n],
          [null, true],
        ],
      ),
    ).toBe("a,b\r\n1,2\r\n,true\r\n");
  });

  it("escapes commas, quotes and line breaks (RFC 4180)", () => {
    expect(csvCell('say "hi", ok')).toBe('"say ""hi"", ok"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
  });

  it("security: formula starts are neutralised with a leading quote", () => {
    for (const evil of ['=HYPERLINK("http://x")', "+1+1", "-2", "@SUM(A1)", "\tcmd", "\r=1"]) {
      const cell = csvCell(evil);
      expect(cell.replace(/^"/, "")).toMatch(/^'/);
    }
    expect(csvCell("=1,2")).toBe('"\'=1,2"');
    expect(csvCell("0x12")).toBe("0x12");
  });

  it("csvOf: each column's header and cell come from one place, in the columns' order", () => {
    const rows = [
      { id: "1", amount: 10n },
      { id: "=2", amount: 0n },
    ];
    expect(
      csvOf(
        [
          ["amount", (r) => r.amount],
          ["id", (r) => r.id],
        ],
        rows,
      ),
    ).toBe("amount,id\r\n10,1\r\n0,'=2\r\n");
  });
});
