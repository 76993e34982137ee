import {
  type FieldError,
  LEGACY_DEFAULT_BY_MODE,
  type NetworkMode,
  ZRegisterMerchantInput,
} from "@tollgate/shared";
import { type FormEvent, useState } from "react";
import { CardForm } from "../../components/CardForm";
import { Field, FieldMessage } from "../../components/Field";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useNetworks } from "../../hooks/useNetworks";
import { errorFor, unclaimed, validate } from "../../lib/errors";
import { networksInMode } from "../../lib/networks";
import type { MerchantApi, RegisterMerchantRequest, RegisterMerchantResult } from "../../lib/trpc";
import { SubmitActions } from "../../ui/ActionButton";
import {
  claimsMerchantPath,
  fieldsProblem,
  MerchantNameField,
  SettlementAndTiers,
  useSettlementAndTiers,
  WebhookUrlField,
} from "./MerchantFields";
import { defaultTierRows, tiersFromRows } from "./tiers";

const PAYOUT_FIELDS = [
  {
    key: "evm",
    label: "EVM address",
    hint: "One address for every EVM network this service settles on. Checksummed or all lowercase.",
  },
  { key: "solana", label: "Solana address (optional)", hint: "Base58 public key (32 bytes)." },
  { key: "near", label: "NEAR account (optional)", hint: "e.g. acme.near" },
  { key: "aptos", label: "Aptos address (optional)", hint: "0x + 64 hex digits, or 0x1 to 0xf." },
] as const;
type PayoutKey = (typeof PAYOUT_FIELDS)[number]["key"];

/** The registration-only fields' own paths (the shared fields claim theirs: claimsMerchantPath). */
const REGISTER_PATHS = new Set(["pay_to", "network_mode"]);

interface RegisterFormProps {
  api: MerchantApi;
  onRegistered: (result: RegisterMerchantResult) => void;
}

/** Registration (SPEC §2.1, §2.2): the shared schema runs first, so its messages show without a round trip. */
export function RegisterForm({ api, onRegistered }: RegisterFormProps) {
  const [name, setName] = useState("");
  const [payTo, setPayTo] = useState<Record<PayoutKey, string>>({ evm: "", solana: "", near: "", aptos: "" });
  // Test first (decision 0069): the mode is permanent, and a first registration is usually a trial.
  const [mode, setMode] = useState<NetworkMode>("test");
  const terms = useSettlementAndTiers({
    version: "1.2",
    chain: LEGACY_DEFAULT_BY_MODE.test,
    tierRows: defaultTierRows,
  });
  const { version, chain, setChain, tierRows } = terms;
  const [webhookUrl, setWebhookUrl] = useState("");
  const { busy, problem, run, setProblem } = useAction();
  const errors = problem?.errors ?? [];

  const networks = useNetworks(api);

  function changeMode(next: NetworkMode) {
    setMode(next);
    const inMode = networksInMode(networks ?? [], next);
    // The API lists each mode's legacy default first (SPEC §2.1); before the list loads, the SPEC default stands.
    if (!inMode.some((network) => network.name === chain))
      setChain(inMode[0]?.name ?? LEGACY_DEFAULT_BY_MODE[next]);
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    const { tiers, errors: tierErrors } = tiersFromRows(tierRows);
    const input: RegisterMerchantRequest = {
      name,
      pay_to: Object.fromEntries(
        Object.entries(payTo)
          .map(([key, value]) => [key, value.trim()])
          .filter(([, value]) => value !== ""),
      ),
      network_mode: mode,
      settlement_version: version,
      settlement_chain: chain,
      tiers,
      ...(webhookUrl.trim() ? { webhook_url: webhookUrl.trim() } : {}),
    };
    const checked = validate(ZRegisterMerchantInput, input);
    const clientErrors = [...(checked.ok ? [] : checked.errors), ...tierErrors];
    if (clientErrors.length > 0) {
      setProblem(fieldsProblem(clientErrors));
      return;
    }
    await run(async () => onRegistered(await api.register(input)));
  }

  const claimsShared = claimsMerchantPath(tierRows);
  const extra = unclaimed(
    errors,
    (path) => claimsShared(path) || REGISTER_PATHS.has(path) || path.startsWith("pay_to."),
  );

  return (
    <CardForm
      heading="Register a merchant"
      headingId="register-heading"
      testId="register-form"
      onSubmit={submit}
    >
      <MerchantNameField testId="register-name" value={name} onChange={setName} errors={errors} required />

      <PayoutWalletsFields payTo={payTo} onChange={setPayTo} errors={errors} />

      <NetworkModeFields mode={mode} onChange={changeMode} errors={errors} />

      <SettlementAndTiers mode={mode} networks={networks} errors={errors} {...terms.fields} />

      <WebhookUrlField
        label="Settlement webhook URL (optional)"
        hint="Tollgate POSTs a signed notice here after every settlement."
        testId="register-webhook"
        value={webhookUrl}
        onChange={setWebhookUrl}
        errors={errors}
      />

      <ProblemBanner problem={problem} extraErrors={extra} />
      <SubmitActions
        busy={busy}
        testId="register-submit"
        label="Register merchant"
        busyLabel="Registering…"
      />
    </CardForm>
  );
}

/** The payout wallets: the EVM one receives payments, the others are kept for later. */
function PayoutWalletsFields({
  payTo,
  onChange,
  errors,
}: {
  payTo: Record<PayoutKey, string>;
  onChange: (payTo: Record<PayoutKey, string>) => void;
  errors: readonly FieldError[];
}) {
  return (
    <fieldset className="group" aria-describedby="payout-hint">
      <legend>Payout wallets</legend>
      <p className="field__hint" id="payout-hint">
        At least one is required. Payments settle to the EVM address; Solana, NEAR and Aptos are stored for
        later.
      </p>
      {PAYOUT_FIELDS.map((field) => (
        <Field
          key={field.key}
          label={field.label}
          hint={field.hint}
          testId={`register-pay-to-${field.key}`}
          className="mono-input"
          value={payTo[field.key]}
          onChange={(event) => onChange({ ...payTo, [field.key]: event.target.value })}
          error={errorFor(errors, `pay_to.${field.key}`)}
          spellCheck={false}
          autoComplete="off"
        />
      ))}
      <FieldMessage testId="register-pay-to-error" message={errorFor(errors, "pay_to")} />
    </fieldset>
  );
}

/** Live (mainnet) or test (testnet), fixed at registration. */
function NetworkModeFields({
  mode,
  onChange,
  errors,
}: {
  mode: NetworkMode;
  onChange: (mode: NetworkMode) => void;
  errors: readonly FieldError[];
}) {
  return (
    <fieldset className="group" aria-describedby="mode-hint">
      <legend>Network mode</legend>
      <p className="field__hint" id="mode-hint">
        <strong>Permanent:</strong> the mode is fixed at registration and cannot be changed later. Test
        settles on testnets with no real money; live settles real funds on mainnets. To go live after trying
        it out, register a second merchant in live mode.
      </p>
      <div className="radios">
        {(["test", "live"] as const).map((value) => (
          <label key={value} className="radio">
            <input
              type="radio"
              name="network_mode"
              value={value}
              data-testid={`register-mode-${value}`}
              checked={mode === value}
              onChange={() => onChange(value)}
            />
            {value === "live" ? "Live (mainnet)" : "Test (testnet)"}
          </label>
        ))}
      </div>
      <FieldMessage testId="register-mode-error" message={errorFor(errors, "network_mode")} />
    </fieldset>
  );
}
