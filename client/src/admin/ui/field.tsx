// A labelled control with its error, tied together for assistive technology.
import { useId } from "preact/hooks";

type InputProps = {
  type?: string;
  autoComplete?: string;
  required?: boolean;
  min?: string | number;
  max?: string | number;
  /** A `<datalist>`'s id: suggestions for the value. */
  list?: string;
  step?: string | number;
  inputMode?: "numeric" | "decimal" | "text" | "email" | "search";
  placeholder?: string;
  disabled?: boolean;
  label: string;
  value: string;
  onValue: (v: string) => void;
  error?: string;
  hint?: string;
};

export function Field({ label, value, onValue, error, hint, ...rest }: InputProps) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      <input
        {...(rest as Record<string, unknown>)}
        id={id}
        value={value}
        onInput={(e) => onValue((e.currentTarget as HTMLInputElement).value)}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy || undefined}
      />
      {error && (
        <span class="field-error" id={`${id}-error`}>
          <span aria-hidden="true">⚠ </span>
          {error}
        </span>
      )}
    </div>
  );
}

/** A labelled text area with its error, as [`Field`] is for one line. */
export function TextArea({
  label,
  value,
  onValue,
  error,
  hint,
  rows = 3,
}: {
  label: string;
  value: string;
  onValue: (v: string) => void;
  error?: string;
  hint?: string;
  rows?: number;
}) {
  const id = useId();
  const describedBy = [hint ? `${id}-hint` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      <textarea
        id={id}
        rows={rows}
        value={value}
        onInput={(e) => onValue((e.currentTarget as HTMLTextAreaElement).value)}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={describedBy || undefined}
      />
      {error && (
        <span class="field-error" id={`${id}-error`}>
          <span aria-hidden="true">⚠ </span>
          {error}
        </span>
      )}
    </div>
  );
}

type SelectProps = {
  label: string;
  value: string;
  onValue: (v: string) => void;
  options: [string, string][];
};

export function Select({ label, value, onValue, options }: SelectProps) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onValue((e.currentTarget as HTMLSelectElement).value)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

type CheckProps = {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  hint?: string;
  error?: string;
  disabled?: boolean;
};

/** A labelled checkbox with its hint or error (described by them). */
export function Check({ label, checked, onChange, hint, error, disabled }: CheckProps) {
  const id = useId();
  const described = [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ");
  return (
    <div class={error ? "check invalid" : "check"}>
      <input
        type="checkbox"
        id={id}
        checked={checked}
        disabled={disabled}
        aria-invalid={error ? "true" : undefined}
        aria-describedby={described || undefined}
        onChange={(e) => onChange((e.currentTarget as HTMLInputElement).checked)}
      />
      <label for={id}>{label}</label>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <span class="field-error" id={`${id}-error`}>
          <span aria-hidden="true">⚠ </span>
          {error}
        </span>
      )}
    </div>
  );
}
