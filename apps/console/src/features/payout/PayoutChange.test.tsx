import { fireEvent, render, screen } from "@testing-library/react";
import { TRPCClientError } from "@trpc/client";
import { afterEach, describe, expect, it, vi } from "vitest";
import { fakeApi, profile, VALID_EVM, validationError } from "../../test-fakes";
import { PayoutChange, payoutPatch } from "./PayoutChange";

const NEW_EVM = "0x8617E340B3D01FA5F11F306F4090FD50E238070D";
const challenge = {
  message: "example.com wants you to sign in with your Ethereum account:\n...",
  nonce: "abcDEF123456",
  signer: { kind: "evm" as const, address: VALID_EVM.toLowerCase() },
  pay_to: { evm: NEW_EVM },
  expires_at: "2026-01-01T00:05:00.000Z",
};

function problem(code: string, status: number, detail: string) {
  return Object.assign(new TRPCClientError(detail), {
    data: { type: `/docs/errors#${code}`, title: code, status, detail, code, httpStatus: status },
  });
}

afterEach(() => {
  delete (globalThis as { ethereum?: unknown }).ethereum;
});

describe("payoutPatch", () => {
  it("sends only changed families; an emptied field clears one", () => {
    expect(payoutPatch({ evm: VALID_EVM }, { evm: VALID_EVM, solana: "" })).toEqual({});
    expect(payoutPatch({ evm: VALID_EVM }, { evm: ` ${NEW_EVM} `, solana: "" })).toEqual({ evm: NEW_EVM });
    expect(payoutPatch({ evm: VALID_EVM, solana: "So1" }, { evm: VALID_EVM, solana: "" })).toEqual({
      solana: null,
    });
  });
});

describe("PayoutChange", () => {
  it("shows the message, takes a pasted signature and confirms with the challenge's nonce", async () => {
    const merchant = profile();
    const changed = profile({ pay_to: { evm: NEW_EVM } });
    const onChanged = vi.fn();
    const api = fakeApi({
      payoutChallenge: vi.fn().mockResolvedValue(challenge),
      changePayout: vi.fn().mockResolvedValue(changed),
    });
    render(<PayoutChange api={api} merchant={merchant} onChanged={onChanged} />);
    expect((screen.getByTestId("payout-request") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByLabelText("New EVM payout address"), { target: { value: NEW_EVM } });
    fireEvent.click(screen.getByTestId("payout-request"));
    expect(((await screen.findByTestId("payout-message")) as HTMLTextAreaElement).value).toBe(
      challenge.message,
    );
    expect(api.payoutChallenge).toHaveBeenCalledWith({ id: merchant.merchant_id, pay_to: { evm: NEW_EVM } });
    // No browser wallet: no wallet button, the signature is pasted.
    expect(screen.queryByTestId("payout-sign-wallet")).toBeNull();
    fireEvent.change(screen.getByLabelText(/^Signature/), { target: { value: "0xsig" } });
    fireEvent.click(screen.getByTestId("payout-confirm"));
    expect((await screen.findByTestId("payout-notice")).textContent).toBe("Payout changed.");
    expect(api.changePayout).toHaveBeenCalledWith({
      id: merchant.merchant_id,
      nonce: challenge.nonce,
      signature: "0xsig",
      pay_to: { evm: NEW_EVM },
    });
    expect(onChanged).toHaveBeenCalledWith(changed);
  });

  it("signs with window.ethereum (personal_sign of the hex message, as the current payout address)", async () => {
    const request = vi.fn(async ({ method }: { method: string }) =>
      method === "personal_sign" ? `0x${"ab".repeat(65)}` : [VALID_EVM],
    );
    (globalThis as { ethereum?: unknown }).ethereum = { request };
    const api = fakeApi({ payoutChallenge: vi.fn().mockResolvedValue(challenge) });
    render(<PayoutChange api={api} merchant={profile()} onChanged={vi.fn()} />);
    fireEvent.change(screen.getByTestId("payout-evm"), { target: { value: NEW_EVM } });
    fireEvent.click(screen.getByTestId("payout-request"));
    fireEvent.click(await screen.findByTestId("payout-sign-wallet"));
    await vi.waitFor(() =>
      expect((screen.getByTestId("payout-signature") as HTMLTextAreaElement).value).toBe(
        `0x${"ab".repeat(65)}`,
      ),
    );
    const sign = request.mock.calls.find(([args]) => args.method === "personal_sign")?.[0] as unknown as {
      params: string[];
    };
    expect(sign.params[1]).toBe(challenge.signer.address);
    expect(Buffer.from(sign.params[0]!.slice(2), "hex").toString("utf8")).toBe(challenge.message);
  });

  it("shows the problem code's message when the signature is not the payout wallet's", async () => {
    const api = fakeApi({
      payoutChallenge: vi.fn().mockResolvedValue(challenge),
      changePayout: vi
        .fn()
        .mockRejectedValue(
          problem(
            "payout_change_signature_invalid",
            403,
            "the signature is not 0x5290's over the challenge message",
          ),
        ),
    });
    render(<PayoutChange api={api} merchant={profile()} onChanged={vi.fn()} />);
    fireEvent.change(screen.getByTestId("payout-evm"), { target: { value: NEW_EVM } });
    fireEvent.click(screen.getByTestId("payout-request"));
    fireEvent.change(await screen.findByTestId("payout-signature"), { target: { value: "0xbad" } });
    fireEvent.click(screen.getByTestId("payout-confirm"));
    expect((await screen.findByTestId("payout-problem")).textContent).toContain("not 0x5290's");
  });

  it("shows a field error from the challenge beside its field", async () => {
    const api = fakeApi({
      payoutChallenge: vi
        .fn()
        .mockRejectedValue(
          validationError([
            { path: "pay_to.evm", code: "burn_address", message: "a burn address cannot receive payouts" },
          ]),
        ),
    });
    render(<PayoutChange api={api} merchant={profile()} onChanged={vi.fn()} />);
    fireEvent.change(screen.getByTestId("payout-evm"), { target: { value: NEW_EVM } });
    fireEvent.click(screen.getByTestId("payout-request"));
    expect((await screen.findByTestId("payout-evm-error")).textContent).toBe(
      "a burn address cannot receive payouts",
    );
  });
});
