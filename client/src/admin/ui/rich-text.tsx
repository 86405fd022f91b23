// The rich-text field (posts, events, pages, product descriptions): a label, the editor,
// the field's error. The editor itself (Tiptap, ui/rich-text-editor.tsx) is a chunk of its
// own, loaded the first time a screen shows this field — never with the first screen.
import type { ComponentType } from "preact";
import { useEffect, useId, useState } from "preact/hooks";
import { listed, unkept } from "./rich-text-rules";

type EditorProps = RichTextProps & { labelId: string; describedBy: string };
let loaded: ComponentType<EditorProps> | null = null;
let loading: Promise<ComponentType<EditorProps>> | null = null;

/** The editor's chunk, loaded once. (Not `lazy`: a suspending field would take the whole
 *  screen, and what the owner typed in it, back to the loading state.) */
function loadEditor(): Promise<ComponentType<EditorProps>> {
  loading ??= import("./rich-text-editor").then(
    (m) => (loaded = m.default),
    (e) => {
      loading = null;
      throw e;
    },
  );
  return loading;
}

function useEditorComponent(): [ComponentType<EditorProps> | null, boolean] {
  const [editor, setEditor] = useState(() => loaded);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    if (editor) return;
    let live = true;
    loadEditor().then(
      (c) => live && setEditor(() => c),
      () => live && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [editor]);
  return [editor, failed];
}

export type RichTextProps = {
  label: string;
  /** The HTML. */
  value: string;
  onValue: (html: string) => void;
  error?: string;
  hint?: string;
  /** Whether images may be added (their upload needs the content area's write). */
  images?: boolean;
  /** Whether one of the site's forms may be placed (a page's or item's text; as `images`
   *  when not given). */
  forms?: boolean;
  /** A smaller box (an excerpt). */
  short?: boolean;
  disabled?: boolean;
};

export function RichText(props: RichTextProps) {
  const id = useId();
  const { label, error, hint } = props;
  const [Editor, failed] = useEditorComponent();
  // What the stored text has that the editor would not keep, said before it is changed.
  const [lost] = useState(() => unkept(props.value));
  const describedBy = [hint ? `${id}-hint` : "", lost.length ? `${id}-note` : "", error ? `${id}-error` : ""].filter(Boolean).join(" ");
  return (
    <div class={error ? "field rich-text invalid" : "field rich-text"}>
      <span class="label" id={`${id}-label`}>
        {label}
      </span>
      {hint && (
        <span class="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {lost.length > 0 && (
        <p class="note" id={`${id}-note`}>
          This text has {listed(lost)}, which this editor does not keep: they stay as they are
          until you change the text here, and are dropped (their words kept) if you do.
        </p>
      )}
      {Editor ? (
        <Editor {...props} labelId={`${id}-label`} describedBy={describedBy} />
      ) : failed ? (
        <p class="error" role="alert">
          The editor could not be loaded. Check your connection and reload the page.
        </p>
      ) : (
        <p class="loading" role="status">
          Loading the editor…
        </p>
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
