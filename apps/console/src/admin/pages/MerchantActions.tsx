/**
 * Operator actions on the merchant detail page (docs/decisions/0071-operator-actions-in-the-console.md): suspend
 * with a reason the merchant sees, or lift the suspension; internal notes, newest first, never shown to the
 * merchant. Viewers see the state and the notes without the controls.
 */
import { useState } from "react";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { ActionButton } from "../../ui/ActionButton";
import { FormDialog, TextAreaField } from "../../ui/Dialog";
import { useAdmin } from "../context";
import { Loaded, Time } from "../ui";

export interface Suspension {
  suspended_at: string;
  reason: string;
}

export function MerchantSuspension({
  merchantId,
  suspension,
  onChanged,
}: {
  merchantId: string;
  suspension: Suspension | null;
  onChanged: () => Promise<void>;
}) {
  const { client, canAct } = useAdmin();
  const action = useAction();
  const [suspending, setSuspending] = useState(false);
  return (
    <section className="section" aria-labelledby="m-suspension">
      <h2 id="m-suspension">Suspension</h2>
      <ProblemBanner problem={action.problem} testId="suspension-problem" />
      <Notice message={action.notice} testId="suspension-notice" />
      {suspension ? (
        <p className="banner banner--warning" data-testid="merchant-suspended">
          Suspended since <Time at={suspension.suspended_at} />: {suspension.reason}. No new quotes or
          challenges; its listings are not public. Payments already made are honoured.
        </p>
      ) : (
        <p data-testid="merchant-selling">Selling: not suspended.</p>
      )}
      {canAct ? (
        suspension ? (
          <ActionButton
            busy={action.busy}
            testId="unsuspend-merchant"
            onClick={() =>
              action.run(async () => {
                await client.admin.merchantActions.unsuspend.mutate({ id: merchantId });
                await onChanged();
                return "Suspension lifted.";
              })
            }
          >
            Lift the suspension
          </ActionButton>
        ) : (
          <button
            type="button"
            className="button button--danger"
            data-testid="suspend-merchant"
            onClick={() => setSuspending(true)}
          >
            Suspend…
          </button>
        )
      ) : null}
      {suspending ? (
        <SuspendDialog
          merchantId={merchantId}
          onCancel={() => setSuspending(false)}
          onDone={async () => {
            setSuspending(false);
            await onChanged();
          }}
        />
      ) : null}
    </section>
  );
}

function SuspendDialog({
  merchantId,
  onCancel,
  onDone,
}: {
  merchantId: string;
  onCancel: () => void;
  onDone: () => Promise<void>;
}) {
  const { client } = useAdmin();
  const [reason, setReason] = useState("");
  return (
    <FormDialog
      title="Suspend this merchant?"
      onCancel={onCancel}
      testId="suspend-merchant-dialog"
      problemTestId="suspend-merchant-problem"
      listFieldErrors
      submitLabel="Suspend"
      submitClassName="button button--danger"
      submitTestId="suspend-merchant-confirm"
      onSubmit={() => client.admin.merchantActions.suspend.mutate({ id: merchantId, reason })}
      onDone={() => void onDone()}
    >
      {(errors) => (
        <TextAreaField
          id="suspend-merchant-reason"
          label="Reason (shown to the merchant)"
          value={reason}
          onChange={setReason}
          errors={errors}
          path="reason"
          minLength={3}
          maxLength={500}
          testId="suspend-merchant-reason"
        />
      )}
    </FormDialog>
  );
}

const NOTE_MAX = 2000;

export function MerchantNotes({ merchantId }: { merchantId: string }) {
  const { client, canAct } = useAdmin();
  const notes = useLoad(() => client.adminRead.merchantNotes.query({ id: merchantId }), merchantId);
  const action = useAction();
  const [body, setBody] = useState("");
  return (
    <section className="section" aria-labelledby="m-notes">
      <h2 id="m-notes">Internal notes</h2>
      <p className="muted">For operators only: the merchant never sees these.</p>
      {canAct ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void action.run(async () => {
              await client.admin.merchantActions.addNote.mutate({ id: merchantId, body });
              setBody("");
              await notes.reload();
            });
          }}
        >
          <ProblemBanner problem={action.problem} testId="note-problem" />
          <label htmlFor="merchant-note">
            New note ({body.length} / {NOTE_MAX})
          </label>
          <textarea
            id="merchant-note"
            value={body}
            maxLength={NOTE_MAX}
            required
            onChange={(event) => setBody(event.target.value)}
            data-testid="note-body"
          />
          <div className="actions">
            <button type="submit" className="button" disabled={action.busy} data-testid="note-add">
              Add note
            </button>
          </div>
        </form>
      ) : null}
      <Loaded load={notes} what="the notes">
        {(data) =>
          data.notes.length === 0 ? (
            <p data-testid="notes-empty">No notes yet.</p>
          ) : (
            <ol className="notes" data-testid="notes-list">
              {data.notes.map((note) => (
                <li key={note.id} data-testid="note">
                  <p style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>{note.body}</p>
                  <p className="muted">
                    {note.author.email ?? note.author.id} · <Time at={note.created_at} />
                  </p>
                </li>
              ))}
            </ol>
          )
        }
      </Loaded>
    </section>
  );
}
