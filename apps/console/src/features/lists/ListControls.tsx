/**
 * The controls above a merchant list (decision 0076): the shared date range, the filters applied by a button, and
 * the CSV export of every row of the filter and sort (the API's own CSV, page after page).
 */
import type { ReactNode } from "react";
import { ProblemBanner } from "../../components/ProblemBanner";
import type { FormProblem } from "../../lib/errors";
import type { ConsoleNetwork } from "../../lib/networks";
import { DateRangeControl } from "../../ui/DateRange";
import { anyOption, FilterForm, SelectFilter, TextFilter } from "../../ui/Filters";
import type { MerchantListState } from "./useMerchantList";

/**
 * The range, a filter form of `children` applied by its button, and the CSV export beside it; `formKey` changes
 * with the applied filters so the form shows them after a URL change. `range: false` leaves the range control to
 * the page (the webhooks page shows it above its chart, which follows it too).
 */
export function ListFrame({
  list,
  testId,
  formKey,
  range = true,
  exporting,
  exportProblem,
  onExport,
  children,
}: {
  list: MerchantListState;
  testId: string;
  formKey: string;
  range?: boolean;
  exporting: boolean;
  exportProblem: FormProblem | undefined;
  onExport: () => void;
  children: ReactNode;
}) {
  return (
    <>
      {range ? <DateRangeControl state={list.dates} testId={`${testId}-range`} /> : null}
      <FilterForm
        key={formKey}
        onApply={list.apply}
        testId={`${testId}-filters`}
        submitTestId={`${testId}-apply`}
        after={
          <button
            type="button"
            className="button button--secondary"
            onClick={onExport}
            disabled={exporting}
            data-testid={`${testId}-export`}
          >
            {exporting ? "Exporting…" : "Export CSV"}
          </button>
        }
      >
        {children}
      </FilterForm>
      <ProblemBanner problem={exportProblem} testId={`${testId}-export-problem`} />
    </>
  );
}

/** The receipts' and settlements' controls: network, state and payer filters. */
export function ListControls({
  list,
  testId,
  states,
  networks,
  exporting,
  exportProblem,
  onExport,
}: {
  list: MerchantListState;
  testId: string;
  /** The state filter's choices ("" is any). */
  states: readonly string[];
  networks: ConsoleNetwork[] | undefined;
  exporting: boolean;
  exportProblem: FormProblem | undefined;
  onExport: () => void;
}) {
  const { filters } = list;
  // The API's own network list (decision 0057); an applied value stays selectable meanwhile.
  const networkOptions = [
    "",
    ...new Set([
      ...(networks ?? []).map((network) => network.name),
      ...(filters.network ? [filters.network] : []),
    ]),
  ];
  return (
    <ListFrame
      list={list}
      testId={testId}
      formKey={`${filters.network ?? ""}:${filters.state ?? ""}:${filters.payer ?? ""}`}
      exporting={exporting}
      exportProblem={exportProblem}
      onExport={onExport}
    >
      <SelectFilter
        label="Network"
        name="network"
        defaultValue={filters.network ?? ""}
        options={networkOptions}
        optionLabel={anyOption}
        testId={`${testId}-network`}
      />
      <SelectFilter
        label="State"
        name="state"
        defaultValue={filters.state ?? ""}
        options={states}
        optionLabel={anyOption}
        testId={`${testId}-state`}
      />
      <TextFilter
        label="Payer"
        name="payer"
        defaultValue={filters.payer ?? ""}
        placeholder="0x…"
        testId={`${testId}-payer`}
      />
    </ListFrame>
  );
}
