/**
 * Networks the indexer halted (a reorg deeper than maxReorgDepth): shown on the overview with a resume control
 * (POST /api/admin/networks/{network}/resume, a reason recorded in the audit log). Hidden when nothing is halted.
 */
import { type FormEvent, useState } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import { type FormProblem, toFormProblem } from "../../lib/errors";
import type { AdminClient, Overview } from "../api";
import { useAdmin } from "../context";
import { Dialog, Time } from "../ui";

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
  const [problem, setProblem] = useState<FormProblem>();
  if (halted.length === 0) return null;

  async function submit(event: FormEvent) {
    event.preventDefault();
    try {
      await client.admin.resumeNetwork.mutate({ network: resuming as Network, reason });
      setResuming(undefined);
      setReason("");
      onChanged();
    } catch (error) {
      setProblem(toFormProblem(error));
    }
  }

  return (
    <section className="section banner--error" aria-labelledby="halted-title" data-testid="halted-networks">
      <h2 id="halted-title">Halted networks</h2>
      <p>
        The indexer follows nothing on these networks until an operator resumes them (see docs/operations.md).
      </p>
      <ul>
        {halted.map((h) => (
          <li key={h.network}>
            <strong>{h.network}</strong> since <Time at={h.halted_at} /> at block {h.block_number ?? "?"}:{" "}
            {h.reason}{" "}
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
        <Dialog title={`Resume ${resuming}?`} onCancel={() => setResuming(undefined)} testId="resume-dialog">
          <ProblemBanner problem={problem} testId="resume-problem" extraErrors={problem?.errors} />
          <form onSubmit={submit}>
            <label htmlFor="resume-reason">What was checked (recorded in the audit log)</label>
            <textarea
              id="resume-reason"
              value={reason}
              onChange={(event) => setReason(event.target.value)}
              required
            />
            <div className="actions">
              <button type="submit" className="button">
                Resume
              </button>
              <button
                type="button"
                className="button button--secondary"
                onClick={() => setResuming(undefined)}
              >
                Cancel
              </button>
            </div>
          </form>
        </Dialog>
      ) : null}
    </section>
  );
}
