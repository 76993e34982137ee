import { type FieldError, ZTiers, ZUpdateMerchantInput } from "@tollgate/shared";
import { type FormEvent, useState } from "react";
import { CardForm } from "../../components/CardForm";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useNetworks } from "../../hooks/useNetworks";
import { unclaimed, validate } from "../../lib/errors";
import type { MerchantApi, MerchantProfile, UpdateMerchantRequest } from "../../lib/trpc";
import { SubmitActions } from "../../ui/ActionButton";
import {
  claimsMerchantPath,
  fieldsProblem,
  MerchantNameField,
  SettlementAndTiers,
  useSettlementAndTiers,
  WebhookUrlField,
} from "./MerchantFields";
import { rowsFromTiers, tiersFromRows, tiersPatch } from "./tiers";

interface ProfileEditFormProps {
  api: MerchantApi;
  merchant: MerchantProfile;
  /** Called with the saved profile, or with `undefined` when there was nothing to change. */
  onSaved: (merchant: MerchantProfile | undefined) => void;
}

/** Editable profile fields. Only what changed is sent; payout wallets and network mode are not editable here. */
export function ProfileEditForm({ api, merchant, onSaved }: ProfileEditFormProps) {
  const [name, setName] = useState(merchant.name);
  const [webhookUrl, setWebhookUrl] = useState(merchant.webhook_url ?? "");
  const terms = useSettlementAndTiers({
    version: merchant.settlement_version,
    chain: merchant.settlement_chain,
    tierRows: () => rowsFromTiers(merchant.tiers),
  });
  const { version, chain, tierRows } = terms;
  const networks = useNetworks(api);
  const { busy, problem, run, setProblem } = useAction();
  const errors = problem?.errors ?? [];

  async function submit(event: FormEvent) {
    event.preventDefault();
    const { tiers, errors: duplicateErrors } = tiersFromRows(tierRows);
    const patch = tiersPatch(merchant.tiers, tiers);
    const webhook = webhookUrl.trim();
    const changes: Omit<UpdateMerchantRequest, "id"> = {
      ...(name !== merchant.name ? { name } : {}),
      ...(Object.keys(patch).length > 0 ? { tiers: patch } : {}),
      ...(webhook !== (merchant.webhook_url ?? "") ? { webhook_url: webhook === "" ? null : webhook } : {}),
      ...(version !== merchant.settlement_version ? { settlement_version: version } : {}),
      ...(chain !== merchant.settlement_chain ? { settlement_chain: chain } : {}),
    };
    // The patch schema checks each changed field; the whole-tiers schema adds "at least one tier".
    const checkedPatch = validate(ZUpdateMerchantInput, changes);
    const checkedTiers = changes.tiers ? validate(ZTiers, tiers) : ({ ok: true } as const);
    const clientErrors = dedupe([
      ...(checkedPatch.ok ? [] : checkedPatch.errors),
      ...(checkedTiers.ok ? [] : checkedTiers.errors.map(prefixTiers)),
      ...duplicateErrors,
    ]);
    setProblem(clientErrors.length > 0 ? fieldsProblem(clientErrors) : undefined);
    if (clientErrors.length > 0) return;
    if (Object.keys(changes).length === 0) {
      onSaved(undefined);
      return;
    }
    await run(async () => onSaved(await api.update({ id: merchant.merchant_id, ...changes })));
  }

  const extra = unclaimed(errors, claimsMerchantPath(tierRows));

  return (
    <CardForm heading="Edit profile" headingId="edit-heading" testId="profile-form" onSubmit={submit}>
      <MerchantNameField testId="profile-name" value={name} onChange={setName} errors={errors} />
      <SettlementAndTiers
        mode={merchant.network_mode}
        networks={networks}
        errors={errors}
        {...terms.fields}
      />
      <WebhookUrlField
        label="Settlement webhook URL"
        hint="Leave empty to stop webhook deliveries."
        testId="profile-webhook"
        value={webhookUrl}
        onChange={setWebhookUrl}
        errors={errors}
      />
      <ProblemBanner problem={problem} extraErrors={extra} testId="profile-problem" />
      <SubmitActions busy={busy} testId="profile-save" label="Save changes" busyLabel="Saving…" />
    </CardForm>
  );
}

/** ZTiers runs on the bare record, so its paths lack the `tiers` prefix the form uses. */
function prefixTiers(error: FieldError): FieldError {
  return { ...error, path: error.path ? `tiers.${error.path}` : "tiers" };
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((error) => {
    const key = `${error.path}\u0000${error.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
