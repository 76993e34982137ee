import { ID_PREFIXES } from "@tollgate/shared";
import { type FormEvent, useState } from "react";
import { CardForm } from "../../components/CardForm";
import { Field } from "../../components/Field";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import type { MerchantApi, MerchantProfile } from "../../lib/trpc";
import { SubmitActions } from "../../ui/ActionButton";

interface SignInFormProps {
  api: MerchantApi;
  onSignedIn: (secret: string, merchant: MerchantProfile) => void;
}

/** Sign-in with the merchant secret: checked by calling merchant.me with it before it is kept. */
export function SignInForm({ api, onSignedIn }: SignInFormProps) {
  const [secret, setSecret] = useState("");
  const [error, setError] = useState<string>();
  const { busy, problem, run, setProblem } = useAction();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const value = secret.trim();
    setProblem(undefined);
    if (value === "") {
      setError(`Enter your merchant secret (it starts with ${ID_PREFIXES.merchantSecret}).`);
      return;
    }
    if (!value.startsWith(ID_PREFIXES.merchantSecret)) {
      setError(`a merchant secret starts with ${ID_PREFIXES.merchantSecret}`);
      return;
    }
    setError(undefined);
    await run(async () => onSignedIn(value, await api.me(value)));
  }

  return (
    <CardForm heading="Sign in" headingId="signin-heading" testId="signin-form" onSubmit={submit}>
      <Field
        label="Merchant secret"
        testId="signin-secret"
        type="password"
        className="mono-input"
        value={secret}
        onChange={(event) => setSecret(event.target.value)}
        error={error}
        hint="The msec_... secret shown when you registered or last rotated it. It is kept for this browser tab only."
        autoComplete="current-password"
        spellCheck={false}
        required
      />
      <ProblemBanner problem={problem} />
      <SubmitActions busy={busy} testId="signin-submit" label="Sign in" busyLabel="Signing in…" />
    </CardForm>
  );
}
