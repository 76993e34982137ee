import { describe, expect, it, vi } from "vitest";
import { toFormProblem } from "./errors";
import { createMerchantApi } from "./trpc";

/** A merchant API whose fetch answers `response` and records what was asked. */
function apiAnswering(response: Response, secret: string | undefined = "msec_abc") {
  const fetch = vi.fn<typeof globalThis.fetch>().mockResolvedValue(response);
  return {
    fetch,
    api: createMerchantApi({ baseUrl: "https://api.example/", getSecret: () => secret, fetch }),
  };
}

describe("MerchantApi.csvPage (decision 0076)", () => {
  it("asks the list's REST path for CSV with the filters, the cursor and the secret; reads the next cursor", async () => {
    const body = "receipt_id\r\nrcpt_1\r\n";
    const { api, fetch } = apiAnswering(
      new Response(body, { headers: { "content-type": "text/csv; charset=utf-8", "x-next-cursor": "abc" } }),
    );
    const page = await api.csvPage("receipts", "mrch_1", { state: "valid", cursor: "c1" });
    expect(page).toEqual({ text: body, next: "abc" });
    const [url, init] = fetch.mock.calls[0]!;
    expect(String(url)).toBe(
      "https://api.example/v1/merchants/mrch_1/receipts?state=valid&cursor=c1&format=csv",
    );
    expect(init?.headers).toEqual({ authorization: "Bearer msec_abc" });
  });

  it("the last page has no next cursor", async () => {
    const { api } = apiAnswering(
      new Response("settlement_id\r\n", { headers: { "content-type": "text/csv" } }),
    );
    expect(await api.csvPage("settlements", "mrch_1", {})).toEqual({ text: "settlement_id\r\n", next: null });
  });

  it("a refusal is the API's problem; an answer that is not JSON is its HTTP status", async () => {
    const problem = {
      type: "/docs/errors#forbidden",
      title: "Forbidden",
      status: 403,
      detail: "this secret belongs to another merchant",
      code: "forbidden",
    };
    const refused = apiAnswering(
      Response.json(problem, { status: 403, headers: { "content-type": "application/problem+json" } }),
    );
    const error = await refused.api.csvPage("receipts", "mrch_2", {}).catch((caught: unknown) => caught);
    expect(toFormProblem(error).message).toBe("Forbidden: this secret belongs to another merchant");
    const proxy = apiAnswering(
      new Response("<html>bad gateway</html>", { status: 502, statusText: "Bad Gateway" }),
    );
    const failed = await proxy.api.csvPage("receipts", "mrch_1", {}).catch((caught: unknown) => caught);
    expect(toFormProblem(failed).message).toContain("HTTP 502");
  });
});
