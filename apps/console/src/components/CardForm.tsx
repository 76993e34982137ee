import type { FormEvent, ReactNode } from "react";

/**
 * A form as a card of the merchant console: its heading names it for assistive technology, and the browser's own
 * validation is off (the shared schema checks the fields and says why).
 */
export function CardForm({
  heading,
  headingId,
  testId,
  onSubmit,
  children,
}: {
  heading: string;
  headingId: string;
  testId: string;
  onSubmit: (event: FormEvent) => void;
  children: ReactNode;
}) {
  return (
    <form
      className="card form"
      onSubmit={onSubmit}
      noValidate
      aria-labelledby={headingId}
      data-testid={testId}
    >
      <h2 id={headingId}>{heading}</h2>
      {children}
    </form>
  );
}
