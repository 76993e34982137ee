/** Operator sign-in (POST /api/admin/login through admin.login) and the locked-out screen (429 login_locked). */
import type { FieldError } from "@tollgate/shared";
import { type FormEvent, useState } from "react";
import { Field } from "../components/Field";
import { usePageTitle } from "../hooks/usePageTitle";
import { errorFor, type FormProblem, toFormProblem } from "../lib/errors";
import { type AdminClient, codeOf, retryAfterSeconds } from "./api";
import { SignedOutForm } from "./SignedOutForm";

export function SignIn({ client, onSignedIn }: { client: AdminClient; onSignedIn: () => void }) {
  usePageTitle("Sign in", "operator");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<FormProblem>();
  const [locked, setLocked] = useState<{ seconds: number | undefined; at: Date }>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    // Checked here first, so an empty or mistyped field gets a sentence beside it, not a schema's message.
    const missing = signInFieldErrors(email, password);
    if (missing.length > 0) {
      setProblem({ message: "Some fields need attention.", errors: missing });
      return;
    }
    setBusy(true);
    setProblem(undefined);
    try {
      await client.admin.login.mutate({ email, password, session: "cookie" });
      setPassword("");
      onSignedIn();
    } catch (error) {
      if (codeOf(error) === "login_locked") setLocked({ seconds: retryAfterSeconds(error), at: new Date() });
      else setProblem(toFormProblem(error));
    } finally {
      setBusy(false);
    }
  }

  if (locked) return <LockedOut {...locked} onBack={() => setLocked(undefined)} />;
  const errors = problem?.errors ?? [];
  return (
    <SignedOutForm
      titleId="admin-signin-title"
      title="Operator sign-in"
      intro={
        <p className="muted">
          Operators sign in with the email and password from <code>pnpm admin:create</code>.
        </p>
      }
      problem={problem}
      problemTestId="admin-signin-problem"
      onSubmit={submit}
      submit={{ label: "Sign in", busyLabel: "Signing in…", busy, testId: "admin-signin-submit" }}
    >
      <Field
        label="Email"
        type="email"
        autoComplete="username"
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={errorFor(errors, "email")}
        testId="admin-email"
      />
      <Field
        label="Password"
        type="password"
        autoComplete="current-password"
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        error={errorFor(errors, "password")}
        testId="admin-password"
      />
    </SignedOutForm>
  );
}

/** The operator sign-in's own field checks: what is missing or malformed, in words (decision 0069). */
export function signInFieldErrors(email: string, password: string): FieldError[] {
  const errors: FieldError[] = [];
  if (email.trim() === "") {
    errors.push({
      path: "email",
      code: "required",
      message: "Enter the email address of your operator account.",
    });
  } else if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) {
    errors.push({
      path: "email",
      code: "invalid_format",
      message: "Enter an email address, like name@example.com.",
    });
  }
  if (password === "") errors.push({ path: "password", code: "required", message: "Enter your password." });
  return errors;
}

/** A wait as people say it: seconds under a minute, whole minutes (rounded up) above. */
function waitText(seconds: number): string {
  if (seconds < 60) return `${seconds} ${seconds === 1 ? "second" : "seconds"}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} ${minutes === 1 ? "minute" : "minutes"}`;
}

/** Too many failed sign-ins: the wait comes from Retry-After (or the problem's detail) and is shown as a time. */
export function LockedOut({
  seconds,
  at,
  onBack,
}: {
  seconds: number | undefined;
  at: Date;
  onBack: () => void;
}) {
  const until = seconds === undefined ? undefined : new Date(at.getTime() + seconds * 1000);
  return (
    <section className="card narrow" role="alert" aria-labelledby="locked-title" data-testid="admin-locked">
      <h1 id="locked-title">Sign-in paused</h1>
      <p>
        Too many failed sign-ins from this address for this account. Sign-in waits a while, and each further
        failure doubles the wait up to a fixed bound. Once the wait is over, the right password signs in.
      </p>
      {until && seconds !== undefined ? (
        <p data-testid="admin-locked-wait">
          Try again in {waitText(seconds)}, after{" "}
          <time dateTime={until.toISOString()}>{until.toLocaleTimeString()}</time>.
        </p>
      ) : (
        <p>Try again later.</p>
      )}
      <p className="muted">
        If you did not make these attempts, tell the owner: the attempts are in the audit log.
      </p>
      <button type="button" className="button button--secondary" onClick={onBack}>
        Back to sign-in
      </button>
    </section>
  );
}
