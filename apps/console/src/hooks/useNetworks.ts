import type { ConsoleNetwork } from "../lib/networks";
import type { MerchantApi } from "../lib/trpc";
import { useLoad } from "./useLoad";

/** The API's settlement networks (decision 0057); undefined until they have loaded (or when the read failed). */
export function useNetworks(api: Pick<MerchantApi, "networks">): ConsoleNetwork[] | undefined {
  return useLoad(() => api.networks(), api).data;
}
