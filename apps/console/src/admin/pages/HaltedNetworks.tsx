/**
 * Networks the indexer halted (a reorg deeper than maxReorgDepth): shown on the overview with a resume control
 * (POST /api/admin/networks/{network}/resume, a reason recorded in the audit log). Hidden when nothing is halted.
 */
import { useState } from "react";
import { FormDialog, TextAreaField } from "../../ui/Dialog";
import type { AdminClient, Overview } from "../api";
import { useAdmin } from "../context";
import { ClampedText, Time } from "../ui";

type Network = Parameters<AdminClient["admin"]["resumeNetwork"]["mutate"]>[0]["network"];

export function HaltedNetworks({
  halted,
  onChanged,
}: {
  halted: Overview["halted_networks"];
  onChanged: () => void;
}) {
  const { client, canAct } = useAdmin();
  const [resuming, setResuming] = useState<string>();
  const [reason, setReason] = useState("");
  if (halted.length === 0) return null;

  return (
    <section className="section banner--error" aria-labelledby="halted-title" data-testid="halted-networks">
      <h2 id="halted-title">Halted networks</h2>
      <p>
        The indexer follows nothing on these networks until an operator resumes them (see docs/operations.md).
      </p>
      <ul>
        {halted.map((h) => (
          <li key={h.network}>
            <strong>{h.network}</strong> since <Time at={h.halted_at} /> at block {h.block_number ?? "?"}:
            <ClampedText text={h.reason} testId={`halted-reason-${h.network}`} />
            <button
              type="button"
              className="button button--secondary"
              disabled={!canAct}
              onClick={() => setResuming(h.network)}
            >
              Resume {h.network}…
            </button>
          </li>
        ))}
      </ul>
      {resuming ? (
        <FormDialog
          title={`Resume ${resuming}?`}
          onCancel={() => setResuming(undefined)}
          testId="resume-dialog"
          problemTestId="resume-problem"
          listFieldErrors
          submitLabel="Resume"
          onSubmit={() => client.admin.resumeNetwork.mutate({ network: resuming as Network, reason })}
          onDone={() => {
            setResuming(undefined);
            setReason("");
            onChanged();
          }}
        >
          {() => (
            <TextAreaField
              id="resume-reason"
              label="What was checked (recorded in the audit log)"
              value={reason}
              onChange={setReason}
            />
          )}
        </FormDialog>
      ) : null}
    </section>
  );
}
