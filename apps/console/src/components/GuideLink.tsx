import { DOCS_BASE, guideUrl } from "../lib/docs";

/** The section's guide (docs/<file>) and the API reference, under the section (decision 0074). */
export function GuideLink({
  file,
  base = DOCS_BASE,
  testId,
}: {
  file: string;
  base?: string | undefined;
  testId: string;
}) {
  const url = guideUrl(file, base);
  return (
    <p className="muted" data-testid={testId}>
      Guide:{" "}
      {url ? (
        <a href={url} target="_blank" rel="noreferrer" data-testid={`${testId}-guide`}>
          docs/{file}
        </a>
      ) : (
        <>
          <code data-testid={`${testId}-guide`}>docs/{file}</code> in the Tollgate repository
        </>
      )}
      {" · "}
      <a href="/docs" data-testid={`${testId}-reference`}>
        API reference
      </a>
    </p>
  );
}
