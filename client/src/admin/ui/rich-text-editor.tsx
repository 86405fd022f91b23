// The rich-text editor (Tiptap on ProseMirror, through preact/compat): a toolbar of labelled
// buttons that say whether they are on (aria-pressed) and name their keyboard shortcuts
// (aria-keyshortcuts), each reachable with Tab, then the text box. Headings, bold, italic,
// lists, quotes, links (checked as navigation links are: SPEC.md §5's "Links must be
// formatted as …") and images (uploaded with `POST /api/owner/assets`; the server's SPEC.md
// §5 file messages shown as they come; alt text required unless the image is marked
// decorative, which stores `alt=""`) and, in a page's or item's text, one of the site's forms
// ("Form": a dialog picking it by name; see ./form-block.ts). What it gives back is plain HTML; the server
// sanitizes it before storing it (api/src/routes/owner/rich_text.rs).
//
// A chunk of its own (ui/rich-text.tsx loads it lazily): Tiptap never weighs on the first
// screen nor on any visitor's page.
import { Extension } from "@tiptap/core";
import Image from "@tiptap/extension-image";
import { EditorContent, useEditor, type Editor } from "@tiptap/react";
import StarterKit from "@tiptap/starter-kit";
import { createPortal } from "preact/compat";
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { type ApiError, upload } from "../api/client";
import type { Asset } from "../api/types";
import type { FormList } from "../api/types";
import { Dialog } from "./dialog";
import { Field } from "./field";
import { FormBlock, siteForms } from "./form-block";
import type { RichTextProps } from "./rich-text";
import { BAD_LINK, checkLink, NO_ALT, notAnImage } from "./rich-text-rules";

type Props = RichTextProps & { labelId: string; describedBy: string };

/** The editor's HTML, "" for an empty document. */
function htmlOf(editor: Editor): string {
  return editor.isEmpty ? "" : editor.getHTML();
}

export default function RichTextEditor({ label, value, onValue, labelId, describedBy, images = true, forms = images, short, disabled, error }: Props) {
  const [dialog, setDialog] = useState<"link" | "image" | "form" | null>(null);
  const openLink = useRef<() => void>(() => {});
  // The HTML the document gave lately: a `value` among them is our own coming back (perhaps
  // a keystroke or two behind, as renders lag typing); any other is a change from outside
  // (an item loaded), which replaces the document.
  const known = useRef<string[]>([value]);
  // The options stay the same objects from render to render: Tiptap sets a changed option
  // on the live editor, which would disturb typing at every keystroke.
  const extensions = useMemo(
    () => [
      StarterKit.configure({
        heading: { levels: [1, 2, 3, 4] },
        code: false,
        codeBlock: false,
        link: { openOnClick: false, autolink: true, defaultProtocol: "https", HTMLAttributes: { rel: "noopener", target: null } },
      }),
      Image.configure({ inline: false }),
      FormBlock,
      Extension.create({
        name: "linkShortcut",
        addKeyboardShortcuts() {
          return {
            "Mod-k": () => {
              openLink.current();
              return true;
            },
          };
        },
      }),
    ],
    [],
  );
  const editorProps = useMemo(
    () => ({
      attributes: {
        role: "textbox",
        "aria-multiline": "true",
        "aria-labelledby": labelId,
        ...(describedBy ? { "aria-describedby": describedBy } : {}),
        ...(error ? { "aria-invalid": "true" } : {}),
        class: short ? "rich-text-area short" : "rich-text-area",
      },
    }),
    [labelId, describedBy, error, short],
  );
  const [content] = useState(value);
  const editor = useEditor({
    extensions,
    content,
    editable: !disabled,
    // The site's policy allows no inline style: the editor's rules are in admin.css.
    injectCSS: false,
    shouldRerenderOnTransaction: true,
    editorProps,
    onUpdate: ({ editor }) => {
      const html = htmlOf(editor);
      known.current = [...known.current.slice(-31), html];
      onValue(html);
    },
  });
  openLink.current = () => setDialog("link");

  const given = useRef(value);
  useEffect(() => {
    // Only a new `value` (not a render for another reason), and not the echo of our own.
    if (!editor || value === given.current) return;
    given.current = value;
    if (known.current.includes(value)) return;
    known.current = [value];
    if (value !== htmlOf(editor)) editor.commands.setContent(value || "", { emitUpdate: false });
  }, [editor, value]);
  useEffect(() => {
    editor?.setEditable(!disabled);
  }, [editor, disabled]);

  if (!editor) return null;
  const chain = () => editor.chain().focus();
  const buttons: { label: string; keys: string; shortcut: string; on: boolean; run: () => void; text: string }[] = [
    { label: "Heading", keys: "Control+Alt+2", shortcut: "Ctrl+Alt+2", on: editor.isActive("heading", { level: 2 }), run: () => chain().toggleHeading({ level: 2 }).run(), text: "Heading" },
    { label: "Subheading", keys: "Control+Alt+3", shortcut: "Ctrl+Alt+3", on: editor.isActive("heading", { level: 3 }), run: () => chain().toggleHeading({ level: 3 }).run(), text: "Subheading" },
    { label: "Bold", keys: "Control+B", shortcut: "Ctrl+B", on: editor.isActive("bold"), run: () => chain().toggleBold().run(), text: "B" },
    { label: "Italic", keys: "Control+I", shortcut: "Ctrl+I", on: editor.isActive("italic"), run: () => chain().toggleItalic().run(), text: "I" },
    { label: "Bulleted list", keys: "Control+Shift+8", shortcut: "Ctrl+Shift+8", on: editor.isActive("bulletList"), run: () => chain().toggleBulletList().run(), text: "Bulleted list" },
    { label: "Numbered list", keys: "Control+Shift+7", shortcut: "Ctrl+Shift+7", on: editor.isActive("orderedList"), run: () => chain().toggleOrderedList().run(), text: "Numbered list" },
    { label: "Quote", keys: "Control+Shift+B", shortcut: "Ctrl+Shift+B", on: editor.isActive("blockquote"), run: () => chain().toggleBlockquote().run(), text: "❝ Quote" },
    { label: "Link", keys: "Control+K", shortcut: "Ctrl+K", on: editor.isActive("link"), run: () => setDialog("link"), text: "Link" },
  ];
  return (
    <div class="rich-text-editor">
      <div class="rich-text-toolbar" role="toolbar" aria-label={`Formatting: ${label}`}>
        {buttons.map((b) => (
          <button
            key={b.label}
            type="button"
            aria-label={b.label}
            aria-pressed={b.on}
            aria-keyshortcuts={b.keys}
            title={`${b.label} (${b.shortcut})`}
            disabled={disabled}
            onClick={b.run}
          >
            {b.text}
          </button>
        ))}
        {images && (
          <button type="button" aria-label="Image" title="Image" disabled={disabled} onClick={() => setDialog("image")}>
            Image
          </button>
        )}
        {forms && (
          <button type="button" aria-label="Form" title="Form" aria-haspopup="dialog" disabled={disabled} onClick={() => setDialog("form")}>
            Form
          </button>
        )}
      </div>
      <EditorContent editor={editor} />
      {dialog === "link" &&
        createPortal(
        <LinkDialog
          current={(editor.getAttributes("link").href as string | undefined) ?? ""}
          onClose={() => {
            setDialog(null);
            editor.commands.focus();
          }}
          onLink={(href) => {
            setDialog(null);
            const c = editor.chain().focus().extendMarkRange("link");
            if (href) c.setLink({ href }).run();
            else c.unsetLink().run();
          }}
        />,
        document.body,
      )}
      {dialog === "image" &&
        createPortal(
        <ImageDialog
          onClose={() => {
            setDialog(null);
            editor.commands.focus();
          }}
          onImage={(src, alt) => {
            setDialog(null);
            editor.chain().focus().setImage({ src, alt }).run();
          }}
        />,
        document.body,
      )}
      {dialog === "form" &&
        createPortal(
          <FormDialog
            onClose={() => {
              setDialog(null);
              editor.commands.focus();
            }}
            onForm={(id) => {
              setDialog(null);
              editor.chain().focus().insertForm(id).run();
            }}
          />,
          document.body,
        )}
    </div>
  );
}

/** Picks one of the site's forms by name; none yet sends the owner to the Forms screen. */
function FormDialog({ onClose, onForm }: { onClose: () => void; onForm: (id: string) => void }) {
  const [list, setList] = useState<FormList["forms"] | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [chosen, setChosen] = useState("");
  const [problem, setProblem] = useState<string | undefined>();
  useEffect(() => {
    siteForms(true).then(
      (l) => {
        setList(l);
        setChosen(l[0]?.id ?? "");
      },
      (e: ApiError) => setFailed(e.message || "The site's forms could not be loaded."),
    );
  }, []);
  return (
    <Dialog title="Add a form" onClose={onClose}>
      {failed ? (
        <>
          <p class="error" role="alert">
            {failed}
          </p>
          <div class="actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </>
      ) : !list ? (
        <p class="loading" role="status">
          Loading the site's forms…
        </p>
      ) : list.length === 0 ? (
        <>
          <p>
            No forms yet. <a href="/config/forms" target="_blank" rel="noopener">Build one in Forms (opens in a new tab)</a>, then place it here.
          </p>
          <div class="actions">
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </>
      ) : (
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            e.stopPropagation();
            if (!chosen) return setProblem("Choose a form.");
            onForm(chosen);
          }}
        >
          <div class={problem ? "field invalid" : "field"}>
            <label for="rich-text-form-pick">Form</label>
            <select
              id="rich-text-form-pick"
              value={chosen}
              aria-invalid={problem ? "true" : undefined}
              aria-describedby={problem ? "rich-text-form-error" : undefined}
              onChange={(e) => setChosen((e.currentTarget as HTMLSelectElement).value)}
            >
              {list.map((f) => (
                <option key={f.id} value={f.id}>
                  {f.name}
                </option>
              ))}
            </select>
            {problem && (
              <span class="field-error" id="rich-text-form-error">
                <span aria-hidden="true">⚠ </span>
                {problem}
              </span>
            )}
          </div>
          <div class="actions">
            <button type="submit">Add form</button>
            <button type="button" onClick={onClose}>
              Cancel
            </button>
          </div>
        </form>
      )}
    </Dialog>
  );
}

function LinkDialog({ current, onClose, onLink }: { current: string; onClose: () => void; onLink: (href: string) => void }) {
  const [url, setUrl] = useState(current);
  const [problem, setProblem] = useState<string | undefined>();
  return (
    <Dialog title={current ? "Change the link" : "Add a link"} onClose={onClose}>
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          e.stopPropagation();
          if (!url.trim()) return onLink("");
          const href = checkLink(url);
          if (!href) return setProblem(BAD_LINK);
          onLink(href);
        }}
      >
        <Field label="Link" hint="A page of this site (/about), a web address or mailto:" value={url} onValue={setUrl} error={problem} />
        <div class="actions">
          <button type="submit">{current ? "Save link" : "Add link"}</button>
          {current && (
            <button type="button" onClick={() => onLink("")}>
              Remove link
            </button>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function ImageDialog({ onClose, onImage }: { onClose: () => void; onImage: (src: string, alt: string) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [alt, setAlt] = useState("");
  const [decorative, setDecorative] = useState(false);
  const [errors, setErrors] = useState<{ file?: string; alt?: string }>({});
  const [busy, setBusy] = useState(false);
  const fileError = errors.file;
  return (
    <Dialog title="Add an image" onClose={onClose}>
      <form
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          e.stopPropagation();
          const problems: { file?: string; alt?: string } = {};
          if (!file) problems.file = "Please choose an image.";
          else if (!file.type.startsWith("image/") && file.type !== "") problems.file = notAnImage(file.name);
          if (!decorative && !alt.trim()) problems.alt = NO_ALT;
          setErrors(problems);
          if (problems.file || problems.alt || !file) return;
          setBusy(true);
          try {
            const asset = await upload<Asset>(`/api/owner/assets?fileName=${encodeURIComponent(file.name)}`, file);
            if (!asset.contentType.startsWith("image/")) {
              setBusy(false);
              return setErrors({ file: notAnImage(file.name) });
            }
            onImage(asset.url, decorative ? "" : alt.trim());
          } catch (x) {
            setBusy(false);
            setErrors({ file: (x as ApiError).message });
          }
        }}
      >
        <div class={fileError ? "field invalid" : "field"}>
          <label for="rich-text-image-file">Image file</label>
          <span class="hint" id="rich-text-image-hint">
            PNG, JPEG, GIF or WebP, up to 20 MB.
          </span>
          <input
            id="rich-text-image-file"
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            aria-invalid={fileError ? "true" : undefined}
            aria-describedby={fileError ? "rich-text-image-hint rich-text-image-error" : "rich-text-image-hint"}
            onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
          />
          {fileError && (
            <span class="field-error" id="rich-text-image-error">
              <span aria-hidden="true">⚠ </span>
              {fileError}
            </span>
          )}
        </div>
        <Field
          label="Alt text"
          hint="What the image shows, for people who cannot see it."
          value={alt}
          onValue={setAlt}
          disabled={decorative}
          error={errors.alt}
        />
        <div class="field check">
          <label>
            <input type="checkbox" checked={decorative} onChange={(e) => setDecorative((e.currentTarget as HTMLInputElement).checked)} /> Decorative image (no alt
            text: screen readers skip it)
          </label>
        </div>
        <div class="actions">
          <button type="submit" disabled={busy}>
            {busy ? "Uploading…" : "Add image"}
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
