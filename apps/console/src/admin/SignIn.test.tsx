import { fireEvent, render, screen } from "@testing-library/react";
import { TRPCClientError } from "@trpc/client";
import { describe, expect, it, vi } from "vitest";
import type { AdminClient } from "./api";
import { SignIn } from "./SignIn";

function problemError(code: string, status: number, detail: string, headers: Record<string, string> = {}) {
  const error = new TRPCClientError(detail, { meta: { response: new Response(null, { status, headers }) } });
  return Object.assign(error, {
    data: { type: `/docs/errors#${code}`, title: code, status, detail, code, httpStatus: status },
  });
}

function clientWith(login: (input: unknown) => Promise<unknown>): AdminClient {
  return { admin: { login: { mutate: login } } } as unknown as AdminClient;
}

function submit(email: string, password: string) {
  fireEvent.change(screen.getByTestId("admin-email"), { target: { value: email } });
  fireEvent.change(screen.getByTestId("admin-password"), { target: { value: password } });
  fireEvent.click(screen.getByTestId("admin-signin-submit"));
}

describe("operator SignIn", () => {
  it("signs in with a cookie session and reports success", async () => {
    const login = vi.fn().mockResolvedValue({ admin: { id: "adm_1" } });
    const onSignedIn = vi.fn();
    render(<SignIn client={clientWith(login)} onSignedIn={onSignedIn} />);
    submit("op@example.com", "correct horse battery staple");
    await vi.waitFor(() => expect(onSignedIn).toHaveBeenCalledOnce());
    expect(login).toHaveBeenCalledWith({
      email: "op@example.com",
      password: "correct horse battery staple",
      session: "cookie",
    });
  });

  it("shows the wrong-password problem from its code", async () => {
    const login = vi
      .fn()
      .mockRejectedValue(problemError("invalid_credentials", 401, "email or password is wrong"));
    render(<SignIn client={clientWith(login)} onSignedIn={vi.fn()} />);
    submit("op@example.com", "nope");
    expect((await screen.findByTestId("admin-signin-problem")).textContent).toContain(
      "email or password is wrong",
    );
  });

  it("shows the locked-out screen with the wait from Retry-After", async () => {
    const login = vi.fn().mockRejectedValue(
      problemError("login_locked", 429, "too many failed sign-ins; try again in 30 s", {
        "retry-after": "900",
      }),
    );
    render(<SignIn client={clientWith(login)} onSignedIn={vi.fn()} />);
    submit("op@example.com", "nope");
    expect((await screen.findByTestId("admin-locked-wait")).textContent).toContain("Try again in 15 minutes");
    fireEvent.click(screen.getByText("Back to sign-in"));
    expect(screen.getByTestId("admin-email")).toBeTruthy();
  });

  it("says a wait under a minute in seconds", async () => {
    const login = vi
      .fn()
      .mockRejectedValue(
        problemError("login_locked", 429, "too many failed sign-ins", { "retry-after": "8" }),
      );
    render(<SignIn client={clientWith(login)} onSignedIn={vi.fn()} />);
    submit("op@example.com", "nope");
    expect((await screen.findByTestId("admin-locked-wait")).textContent).toContain("Try again in 8 seconds");
  });

  it("falls back to the problem's detail when the header is not at hand", async () => {
    const error = Object.assign(new TRPCClientError("locked"), {
      data: {
        code: "login_locked",
        detail: "too many failed sign-ins; try again in 61 s",
        status: 429,
        title: "x",
        type: "",
      },
    });
    render(<SignIn client={clientWith(vi.fn().mockRejectedValue(error))} onSignedIn={vi.fn()} />);
    submit("op@example.com", "nope");
    expect((await screen.findByTestId("admin-locked-wait")).textContent).toContain("Try again in 2 minutes");
  });
});
