/**
 * The controls above a merchant list (decision 0076): the shared date range, the filters applied by a button, and
 * the CSV export of every row of the filter and sort (the API's own CSV, page after page).
 */

import { ProblemBanner } from "../../components/ProblemBanner";
import type { FormProblem } from "../../lib/errors";
import type { ConsoleNetwork } from "../../lib/networks";
import { DateRangeControl } from "../../ui/DateRange";
import { anyOption, FilterForm, SelectFilter, TextFilter } from "../../ui/Filters";
import type { MerchantListState } from "./useMerchantList";

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
    <>
      <DateRangeControl state={list.dates} testId={`${testId}-range`} />
      <FilterForm
        key={`${filters.network ?? ""}:${filters.state ?? ""}:${filters.payer ?? ""}`}
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
      </FilterForm>
      <ProblemBanner problem={exportProblem} testId={`${testId}-export-problem`} />
    </>
  );
}
