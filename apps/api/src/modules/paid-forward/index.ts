/** The paid-forward module's public entry: claim, forward, release or consume, for the bridge and `/g`. */
export { type DeliveredAnswer, forwardPaid, type HeldPayment, type PaidForward } from "./paid-forward";
export { FORWARDED_REQUEST_HEADERS, forwardableRequestHeaders, writeUpstreamResponse } from "./proxy-headers";
export {
  FORWARDED_METHODS,
  hasDotSegment,
  querySuffix,
  subPathOf,
  type UpstreamPolicy,
} from "./upstream-call";
