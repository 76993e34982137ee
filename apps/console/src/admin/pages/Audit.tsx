/**
 * Audit log: filters, cursor pages by seq or time either way (`sort` in the URL; no other order, so a page is a
 * stretch of the chain: decision 0077), the exact total, the API's CSV of every page, and the hash-chain
 * verification (verify=1).
 */
import { useState } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import { useAction } from "../../hooks/useAction";
import { usePagedLoad } from "../../hooks/usePagedLoad";
import { sortParam, useSortParam } from "../../hooks/useSortParam";
import { anyOption, FilterForm, pick, SelectFilter, TextFilter } from "../../ui/Filters";
import { PagedTable } from "../../ui/Pager";
import type { AuditPage as AuditPageData } from "../api";
import { useAdmin } from "../context";
import { downloadServerCsv, exportLabel, jsonPage } from "../export";
import { Loaded, Mono, Time } from "../ui";

const FIELDS = ["actor_type", "actor_id", "action", "target_type", "target_id"] as const;
type Filters = Partial<Record<(typeof FIELDS)[number], string>>;
const ACTOR_TYPES = ["", "admin", "merchant", "user", "system", "anonymous"] as const;

type Verification = NonNullable<AuditPageData["verification"]>;
const PAGE_SIZE = 50;

/** The chain check; after a prune it starts from the retention checkpoint's anchor, and says so. */
export function VerificationBanner({ verification: v }: { verification: Verification }) {
  if (!v.ok) {
    return (
      <p className="banner banner--error" role="alert" data-testid="audit-verify">
        Chain broken at {v.broken.seq} ({v.broken.id}): {v.broken.reason}, after {v.checked} good events.
      </p>
    );
  }
  return (
    <p className="banner banner--success" data-testid="audit-verify">
      Chain verified: {v.checked} events, head <Mono value={v.head} />.
      {v.checkpoint ? (
        <>
          {" "}
          Verified from checkpoint <Mono value={v.checkpoint.anchor_hash} /> ({v.checkpoint.pruned_total} rows
          pruned
          {v.checkpoint.pruned_total === v.checkpoint.pruned_count ? " on " : ", the last prune on "}
          <Time at={v.checkpoint.at} />
          ).
        </>
      ) : null}
    </p>
  );
}

export function AuditPage() {
  const { client } = useAdmin();
  const [filters, setFilters] = useState<Filters>({});
  const { sort, toggle } = useSortParam(["seq", "at"]);
  const query: Record<string, string> = { ...(filters as Record<string, string>) };
  if (sort) query.sort = sortParam(sort);
  const { cursor, list } = usePagedLoad(JSON.stringify(query), async (page) =>
    jsonPage(
      await client.adminRead.audit.query({
        ...query,
        verify: "1",
        ...page,
        limit: PAGE_SIZE,
      } as Parameters<typeof client.adminRead.audit.query>[0]),
    ),
  );
  const csv = useAction();
  return (
    <>
      <h1>Audit log</h1>
      <FilterForm
        onApply={(values) => setFilters(pick(values, FIELDS))}
        after={
          <button
            type="button"
            className="button button--secondary"
            onClick={() =>
              void csv.run(() => downloadServerCsv("/admin/api/audit", query, "tollgate-audit.csv"))
            }
            disabled={csv.busy}
            data-testid="audit-export"
          >
            {exportLabel(csv.busy)}
          </button>
        }
      >
        <SelectFilter
          label="Actor type"
          name="actor_type"
          defaultValue=""
          options={ACTOR_TYPES}
          optionLabel={anyOption}
        />
        <TextFilter label="Actor id" name="actor_id" />
        <TextFilter
          label="Action (exact, or prefix ending with “.”)"
          name="action"
          placeholder="admin.login."
          testId="audit-action"
        />
        <TextFilter label="Target type" name="target_type" />
        <TextFilter label="Target id" name="target_id" />
      </FilterForm>
      <ProblemBanner problem={csv.problem} testId="export-problem" />
      <Loaded load={list} what="the audit log">
        {(d) => (
          <>
            {d.verification ? <VerificationBanner verification={d.verification} /> : null}
            <PagedTable
              label="Audit"
              cursor={cursor}
              nextCursor={d.next_cursor}
              total={d.total}
              shown={d.events.length}
              pageSize={PAGE_SIZE}
              sort={sort}
              onSort={toggle}
              caption="Events, newest first unless sorted"
              testId="audit-table"
              rows={d.events}
              rowKey={(e) => e.id}
              empty="No event matches."
              columns={[
                { header: "Seq", cell: (e) => e.seq, numeric: true, sortKey: "seq" },
                { header: "At", cell: (e) => <Time at={e.at} />, sortKey: "at" },
                {
                  header: "Actor",
                  cell: (e) => (
                    <>
                      {e.actor.type} {e.actor.id ? <Mono value={e.actor.id} /> : null}
                    </>
                  ),
                },
                { header: "Action", cell: (e) => <code>{e.action}</code> },
                {
                  header: "Target",
                  cell: (e) =>
                    e.target ? (
                      <>
                        {e.target.type} {e.target.id ? <Mono value={e.target.id} /> : null}
                      </>
                    ) : (
                      "—"
                    ),
                },
                { header: "Address", cell: (e) => e.ip ?? "—" },
                {
                  header: "Details",
                  cell: (e) => (e.details ? <code>{JSON.stringify(e.details)}</code> : "—"),
                },
              ]}
            />
          </>
        )}
      </Loaded>
    </>
  );
}
