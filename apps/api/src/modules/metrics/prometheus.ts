/**
 * The Prometheus side of GET /api/metrics (docs/decisions/0066-metrics-access-forwarded-headers-and-edge-problems.md):
 * the figures of ./metrics-service.ts become gauges of a prom-client Registry made per scrape, merged with this
 * process's default Node.js metrics (RSS, heap, CPU, GC, handles), so the text and its escaping are prom-client's.
 */
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { MetricFamily } from "./metrics-service";

export const PROMETHEUS_CONTENT_TYPE = Registry.PROMETHEUS_CONTENT_TYPE;

let defaults: Registry | undefined;

/**
 * This process's default metrics, registered once per process: they describe the process, whichever app in it
 * answers, and each registration starts its own event-loop and GC observers.
 */
function processDefaults(): Registry {
  if (!defaults) {
    defaults = new Registry();
    collectDefaultMetrics({ register: defaults });
  }
  return defaults;
}

/** One gauge per family, its label names the union of its samples' (a sample without one leaves it empty). */
function registryOf(families: readonly MetricFamily[]): Registry {
  const registry = new Registry();
  for (const family of families) {
    const labelNames = [...new Set(family.samples.flatMap((sample) => Object.keys(sample.labels)))];
    const gauge = new Gauge({ name: family.name, help: family.help, labelNames, registers: [registry] });
    for (const { labels, value } of family.samples) gauge.set(labels, Number(value));
  }
  return registry;
}

/** The scrape's registry: the families given plus this process's default metrics. */
export function scrapeRegistry(families: readonly MetricFamily[]): Registry {
  return Registry.merge([registryOf(families), processDefaults()]);
}
