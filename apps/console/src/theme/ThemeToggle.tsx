import { setThemeChoice, type ThemeChoice, useTheme } from "./theme";

const LABELS: Record<ThemeChoice, string> = { system: "System", light: "Light", dark: "Dark" };

/** The header's theme control (decision 0073): a labelled select, so it reads the same on every screen width. */
export function ThemeToggle() {
  const { choice } = useTheme();
  return (
    <label className="theme-toggle">
      <span>Theme</span>
      <select
        value={choice}
        onChange={(event) => setThemeChoice(event.target.value as ThemeChoice)}
        data-testid="theme-toggle"
      >
        {(Object.keys(LABELS) as ThemeChoice[]).map((value) => (
          <option key={value} value={value}>
            {LABELS[value]}
          </option>
        ))}
      </select>
    </label>
  );
}
