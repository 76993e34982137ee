/**
 * Operators (docs/decisions/0071-operator-actions-in-the-console.md): the operator accounts; the owner also changes
 * roles, disables and re-enables accounts, ends an account's sessions, invites by email and revokes pending
 * invitations. Other roles see the list read-only (the API refuses them anyway: 403 `admin_role_forbidden`).
 */
import { useState } from "react";
import { Notice, ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { useLoad } from "../../hooks/useLoad";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { ActionButton } from "../../ui/ActionButton";
import { PagedTable } from "../../ui/Pager";
import { Table } from "../../ui/Table";
import { INVITE_PATH } from "../AcceptInvitation";
import { useAdmin } from "../context";
import { Loaded, Time } from "../ui";

const ROLES = ["owner", "operator", "viewer"] as const;
type Role = (typeof ROLES)[number];

export function OperatorsPage() {
  const { client, me } = useAdmin();
  const isOwner = me.admin.role === "owner";
  const [version, setVersion] = useState(0);
  const { cursor, list } = usePagedLoad(`operators:${version}`, (page) =>
    client.adminRead.users.query({ kind: "admin", ...page }),
  );
  const action = useAction({ keepNotice: true });
  const act = (what: () => Promise<unknown>, notice: string) =>
    action.run(async () => {
      await what();
      setVersion((v) => v + 1);
      return notice;
    });
  return (
    <>
      <h1>Operators</h1>
      {isOwner ? null : <p className="muted">Only the owner manages operators; you see the list.</p>}
      <ProblemBanner problem={action.problem} testId="operators-problem" />
      <Notice message={action.notice} testId="operators-notice" />
      <Loaded load={list} what="operators">
        {(data) => (
          <PagedTable
            label="Operators"
            cursor={cursor}
            nextCursor={data.next_cursor}
            caption="Operator accounts, oldest first"
            testId="operators-table"
            rows={data.users.flatMap((user) => (user.kind === "admin" ? [user] : []))}
            rowKey={(user) => user.id}
            empty="No operator yet."
            columns={[
              { header: "Email", cell: (user) => user.email },
              {
                header: "Role",
                cell: (user) =>
                  isOwner ? (
                    <select
                      aria-label={`Role of ${user.email}`}
                      value={user.role}
                      disabled={action.busy}
                      data-testid={`role-${user.email}`}
                      onChange={(event) => {
                        const role = event.target.value as Role;
                        void act(
                          () => client.admin.operatorRole.mutate({ id: user.id, role }),
                          `${user.email} is now ${role}.`,
                        );
                      }}
                    >
                      {ROLES.map((role) => (
                        <option key={role} value={role}>
                          {role}
                        </option>
                      ))}
                    </select>
                  ) : (
                    user.role
                  ),
              },
              {
                header: "Last sign-in",
                cell: (user) => (user.last_login_at ? <Time at={user.last_login_at} /> : "never"),
              },
              { header: "Status", cell: (user) => (user.disabled ? "disabled" : "active") },
              ...(isOwner
                ? [
                    {
                      header: "Actions",
                      cell: (user: { id: string; email: string; disabled: boolean }) => (
                        <div className="actions">
                          <ActionButton
                            busy={action.busy}
                            className="button button--secondary"
                            label={`${user.disabled ? "Enable" : "Disable"} ${user.email}`}
                            testId={`toggle-${user.email}`}
                            onClick={() =>
                              act(
                                () =>
                                  user.disabled
                                    ? client.admin.enableOperator.mutate({ id: user.id })
                                    : client.admin.disableOperator.mutate({ id: user.id }),
                                `${user.email} is ${user.disabled ? "enabled" : "disabled"}.`,
                              )
                            }
                          >
                            {user.disabled ? "Enable" : "Disable"}
                          </ActionButton>
                          <ActionButton
                            busy={action.busy}
                            className="button button--secondary"
                            label={`End every session of ${user.email}`}
                            testId={`revoke-${user.email}`}
                            onClick={() =>
                              act(
                                () => client.admin.revokeOperatorSessions.mutate({ id: user.id }),
                                `Every session of ${user.email} ended.`,
                              )
                            }
                          >
                            End sessions
                          </ActionButton>
                        </div>
                      ),
                    },
                  ]
                : []),
            ]}
          />
        )}
      </Loaded>
      {isOwner ? <Invitations /> : null}
    </>
  );
}

function Invitations() {
  const { client } = useAdmin();
  const pending = useLoad(() => client.admin.invitations.query(), "invitations");
  const action = useAction();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("viewer");
  const [link, setLink] = useState<string>();
  return (
    <section className="section" aria-labelledby="invitations-title">
      <h2 id="invitations-title">Invitations</h2>
      <ProblemBanner
        problem={action.problem}
        testId="invite-create-problem"
        extraErrors={action.problem?.errors}
      />
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            const created = await client.admin.invite.mutate({ email, role });
            setLink(`${window.location.origin}${INVITE_PATH}#${created.token}`);
            setEmail("");
            await pending.reload();
          });
        }}
      >
        <label htmlFor="invite-email">Email</label>
        <input
          id="invite-email"
          type="email"
          required
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          data-testid="invite-email"
        />
        <label htmlFor="invite-role">Role</label>
        <select
          id="invite-role"
          value={role}
          onChange={(event) => setRole(event.target.value as Role)}
          data-testid="invite-role"
        >
          {ROLES.map((value) => (
            <option key={value} value={value}>
              {value}
            </option>
          ))}
        </select>
        <div className="actions">
          <button type="submit" className="button" disabled={action.busy} data-testid="invite-create">
            Invite
          </button>
        </div>
      </form>
      {link ? (
        <div className="banner banner--info" data-testid="invite-link-banner">
          <p>Send this link to the invitee. It works once, for 72 hours, and is not shown again:</p>
          <p>
            <code data-testid="invite-link" style={{ overflowWrap: "anywhere" }}>
              {link}
            </code>
          </p>
        </div>
      ) : null}
      <Loaded load={pending} what="the invitations">
        {(data) => (
          <Table
            caption="Pending invitations"
            testId="invitations-table"
            rows={data.invitations}
            rowKey={(invitation) => invitation.id}
            empty="No pending invitation."
            columns={[
              { header: "Email", cell: (invitation) => invitation.email },
              { header: "Role", cell: (invitation) => invitation.role },
              { header: "Expires", cell: (invitation) => <Time at={invitation.expires_at} /> },
              {
                header: "",
                cell: (invitation) => (
                  <ActionButton
                    busy={action.busy}
                    className="button button--secondary"
                    label={`Revoke the invitation of ${invitation.email}`}
                    testId={`invite-revoke-${invitation.email}`}
                    onClick={() =>
                      action.run(async () => {
                        await client.admin.revokeInvitation.mutate({ id: invitation.id });
                        await pending.reload();
                      })
                    }
                  >
                    Revoke
                  </ActionButton>
                ),
              },
            ]}
          />
        )}
      </Loaded>
    </section>
  );
}
