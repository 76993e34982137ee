import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { AppError, PROBLEM_CONTENT_TYPE } from "./errors";
import { problemResponse, writeProblem } from "./problem";

describe("problemResponse (the core)", () => {
  it("builds status, RFC 9457 body and no-store from the AppError", () => {
    const problem = problemResponse(new AppError("order_not_found", "no such order"), { requestId: "req_1" });
    expect(problem.status).toBe(404);
    expect(problem.headers).toEqual({ "Cache-Control": "no-store", "Content-Type": PROBLEM_CONTENT_TYPE });
    expect(problem.body).toEqual({
      type: "/docs/errors#order_not_found",
      title: "Bridge order not found",
      status: 404,
      detail: "no such order",
      code: "order_not_found",
      request_id: "req_1",
    });
  });

  it("keeps extension members but never lets them replace a standard member", () => {
    const problem = problemResponse(new AppError("upstream_failed", "secret upstream host 10.0.0.7"), {
      extensions: { replayable: true, status: 200, detail: "overridden", code: "not_found" },
    });
    expect(problem.body).toMatchObject({ replayable: true, status: 502, code: "upstream_failed" });
    // 5xx details stay generic (DESIGN §7), even when an extension tries to set one.
    expect(problem.body.detail).toBe("Upstream failed");
    expect(JSON.stringify(problem.body)).not.toContain("10.0.0.7");
  });

  it("gives every 503 a Retry-After, and the error's own headers win over the defaults", () => {
    expect(problemResponse(new AppError("service_unavailable")).headers["Retry-After"]).toBe("5");
    const own = problemResponse(
      new AppError("upstream_refused", undefined, {
        headers: { "retry-after": "30", "Cache-Control": "private" },
      }),
    );
    expect(own.headers).toEqual({
      "retry-after": "30",
      "Cache-Control": "private",
      "Content-Type": PROBLEM_CONTENT_TYPE,
    });
    expect(problemResponse(new AppError("rate_limited")).headers).not.toHaveProperty("Retry-After");
    // The content type is not the error's to choose.
    const typed = problemResponse(
      new AppError("not_found", undefined, { headers: { "Content-Type": "text/html" } }),
    );
    expect(typed.headers["Content-Type"]).toBe(PROBLEM_CONTENT_TYPE);
  });
});

describe("writeProblem (on a real Node response)", () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("sends status, headers and the JSON body", async () => {
    const url = await serve((_req, res) =>
      writeProblem(res, new AppError("payment_in_flight", "retry", { headers: { "Retry-After": "2" } }), {
        requestId: "req_2",
        extensions: { replayable: true },
      }),
    );
    const response = await fetch(url);
    expect(response.status).toBe(409);
    expect(response.headers.get("content-type")).toBe(PROBLEM_CONTENT_TYPE);
    expect(response.headers.get("retry-after")).toBe("2");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(await response.json()).toMatchObject({
      code: "payment_in_flight",
      detail: "retry",
      request_id: "req_2",
      replayable: true,
    });
  });

  it("leaves a response that already started alone", async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      writeProblem(res, new AppError("internal_error"));
      res.end("partial answer");
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("partial answer");
  });
});
