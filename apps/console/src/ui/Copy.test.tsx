import { fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AgentLink, TxLink } from "../admin/links";
import { Mono } from "../admin/ui";
import { CopyButton, explorerHref } from "./Copy";

afterEach(() => {
  Reflect.deleteProperty(navigator, "clipboard");
});

describe("CopyButton", () => {
  it("copies the whole value, names it for assistive technology and says Copied", async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    const hash = `0x${"ab".repeat(32)}`;
    render(<CopyButton value={hash} what="transaction hash" />);
    fireEvent.click(screen.getByRole("button", { name: `Copy transaction hash ${hash}` }));
    expect(await screen.findByText("Copied")).toBeTruthy();
    expect(writeText).toHaveBeenCalledWith(hash);
  });
});

describe("explorerHref", () => {
  it("links a network's explorer, and nothing for a local chain (no explorer URL) or a non-http one", () => {
    expect(explorerHref("https://polygonscan.com/", "tx", "0xab")).toBe("https://polygonscan.com/tx/0xab");
    expect(explorerHref("https://basescan.org", "address", "0x12")).toBe("https://basescan.org/address/0x12");
    expect(explorerHref(null, "tx", "0xab")).toBeNull();
    expect(explorerHref("javascript:alert(1)", "tx", "0xab")).toBeNull();
  });
});

describe("ids, hashes and addresses in the operator lists", () => {
  it("a transaction hash links its explorer and has a copy button beside (not inside) the link", () => {
    const hash = `0x${"cd".repeat(32)}`;
    render(
      <MemoryRouter>
        <TxLink explorerUrl="https://amoy.polygonscan.com" hash={hash} />
        <AgentLink address={`0x${"8b".repeat(20)}`} />
      </MemoryRouter>,
    );
    const link = screen.getByRole("link", { name: new RegExp(hash) });
    expect(link.getAttribute("href")).toBe(`https://amoy.polygonscan.com/tx/${hash}`);
    const copies = screen.getAllByTestId("copy-button");
    expect(copies).toHaveLength(2);
    expect(copies.every((button) => button.closest("a") === null)).toBe(true);
  });

  it("a local chain (no explorer URL) links no explorer; a bare id still copies", () => {
    const hash = `0x${"ef".repeat(32)}`;
    render(
      <MemoryRouter>
        <TxLink explorerUrl={null} hash={hash} />
        <Mono value="mrch_abc" />
      </MemoryRouter>,
    );
    expect(screen.getByRole("link").getAttribute("href")).toBe(`/search?q=${hash}`);
    expect(screen.getByRole("button", { name: "Copy value mrch_abc" })).toBeTruthy();
  });
});
