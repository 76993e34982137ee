import { describe, expect, it } from "vitest";
import { createSleeper } from "./follower-wait";

/** Resolves with "woke" if `sleep` ends before `ms`, else "slept". */
async function race(sleep: Promise<void>, ms: number): Promise<"woke" | "slept"> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"slept">((resolve) => {
    timer = setTimeout(() => resolve("slept"), ms);
  });
  const result = await Promise.race([sleep.then(() => "woke" as const), late]);
  clearTimeout(timer);
  return result;
}

describe("the follower's sleeper", () => {
  it("a wake ends the current sleep at once", async () => {
    const sleeper = createSleeper();
    const sleeping = sleeper.sleep(60_000);
    sleeper.wake();
    expect(await race(sleeping, 1_000)).toBe("woke");
  });

  it("a wake between sleeps ends the next sleep at once, and only that one", async () => {
    const sleeper = createSleeper();
    sleeper.wake();
    sleeper.wake();
    expect(await race(sleeper.sleep(60_000), 1_000)).toBe("woke");
    expect(await race(sleeper.sleep(60_000), 200)).toBe("slept");
  });

  it("without a wake a sleep lasts its time", async () => {
    const sleeper = createSleeper();
    expect(await race(sleeper.sleep(60_000), 100)).toBe("slept");
  });
});
