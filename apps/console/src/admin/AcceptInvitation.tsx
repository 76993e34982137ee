/**
 * The invitation link's page, /console/admin/invite#<token> (decision 0071): the invitee sets a password and the
 * account exists; then they sign in as usual. The token travels in the fragment, so it never reaches a server log
 * or a Referer header; it is sent once, in the body of POST /api/admin/invitations/accept.
 */
import { type FormEvent, useState } from "react";
import { Field } from "../components/Field";
import { errorFor, type FormProblem, toFormProblem } from "../lib/errors";
import type { AdminClient } from "./api";
import { SignedOutForm } from "./SignedOutForm";

export const INVITE_PATH = "/console/admin/invite";

export function AcceptInvitation({ client, token }: { client: AdminClient; token: string }) {
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<FormProblem>();
  const [accepted, setAccepted] = useState<{ email: string; role: string }>();

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (password !== repeat) {
      setProblem({
        message: "Some fields need attention.",
        errors: [{ path: "repeat", code: "invalid_value", message: "The two passwords differ." }],
      });
      return;
    }
    setBusy(true);
    setProblem(undefined);
    try {
      const { admin } = await client.admin.acceptInvitation.mutate({ token, password });
      setPassword("");
      setRepeat("");
      setAccepted({ email: admin.email, role: admin.role });
      // The token is used up: drop it from the address bar and history.
      window.history.replaceState(null, "", INVITE_PATH);
    } catch (error) {
      setProblem(toFormProblem(error));
    } finally {
      setBusy(false);
    }
  }

  if (accepted) {
    return (
      <section className="card narrow" aria-labelledby="invite-title" data-testid="invite-accepted">
        <h1 id="invite-title">Welcome</h1>
        <p>
          The operator account {accepted.email} ({accepted.role}) is ready.{" "}
          <a href="/console/admin/" data-testid="invite-signin">
            Sign in
          </a>
          .
        </p>
      </section>
    );
  }
  const errors = problem?.errors ?? [];
  return (
    <SignedOutForm
      titleId="invite-title"
      title="Accept your operator invitation"
      intro={
        token ? null : (
          <p className="banner banner--warning" data-testid="invite-no-token">
            This link has no invitation token: open the whole link you were sent.
          </p>
        )
      }
      problem={problem}
      problemTestId="invite-problem"
      onSubmit={submit}
      submit={{
        label: "Create my account",
        busyLabel: "Creating…",
        busy,
        disabled: !token,
        testId: "invite-submit",
      }}
    >
      <Field
        label="Choose a password (at least 12 characters)"
        type="password"
        autoComplete="new-password"
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        error={errorFor(errors, "password")}
        testId="invite-password"
      />
      <Field
        label="Repeat it"
        type="password"
        autoComplete="new-password"
        required
        value={repeat}
        onChange={(event) => setRepeat(event.target.value)}
        error={errorFor(errors, "repeat")}
        testId="invite-repeat"
      />
    </SignedOutForm>
  );
}
