// The modal lightbox (SPEC.md §2 "Additional-fields form", "Confirm modal"): a dialog over
// the page with a close button, closed by Escape, with focus kept inside while it is open
// and given back to where it was when it closes. `confirm` asks a yes/no question and
// resolves true on confirm and false on cancel; a non-cancellable one has no cancel, no
// close button and ignores Escape; it closes itself unless told not to.

import { useLayoutEffect, useRef } from "react";
import type { ComponentChildren } from "preact";
import { render } from "react-dom";
import * as m from "./messages";

export interface ModalProps {
  title: string;
  onClose?: () => void;
  children?: ComponentChildren;
  /** Extra class for the dialog box. */
  className?: string;
}

const FOCUSABLE =
  'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function Modal({ title, onClose, children, className }: ModalProps) {
  const box = useRef<HTMLDivElement>(null);
  // The latest close handler (a re-render must not re-run the effect: it moves focus).
  const closer = useRef(onClose);
  closer.current = onClose;
  useLayoutEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    const el = box.current;
    const first = el?.querySelector<HTMLElement>(FOCUSABLE);
    (first ?? el)?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && closer.current) {
        e.preventDefault();
        closer.current();
      } else if (e.key === "Tab" && el) {
        const items = Array.from(el.querySelectorAll<HTMLElement>(FOCUSABLE));
        if (items.length === 0) {
          e.preventDefault();
          return;
        }
        const [head, tail] = [items[0], items[items.length - 1]];
        if (e.shiftKey && document.activeElement === head) {
          e.preventDefault();
          tail.focus();
        } else if (!e.shiftKey && document.activeElement === tail) {
          e.preventDefault();
          head.focus();
        } else if (!el.contains(document.activeElement)) {
          e.preventDefault();
          head.focus();
        }
      }
    };
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("keydown", onKey);
      before?.focus?.();
    };
  }, []);
  return (
    <div class="tessera-modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose?.()}>
      <div
        ref={box}
        class={`tessera-modal ${className ?? ""}`}
        role="dialog"
        aria-modal="true"
        aria-label={title}
        tabIndex={-1}
      >
        {onClose && (
          <button type="button" class="tessera-modal-close" aria-label={m.CLOSE} onClick={onClose}>
            ×
          </button>
        )}
        <h2 class="tessera-modal-title">{title}</h2>
        {children}
      </div>
    </div>
  );
}

/** Renders `content(close)` in a modal on top of the page until `close()` is called. */
export function openModal(
  content: (close: () => void) => ComponentChildren,
): { close: () => void; host: HTMLElement } {
  const host = document.createElement("div");
  host.className = "tessera-modal-host";
  document.body.appendChild(host);
  const close = () => {
    render(null, host);
    host.remove();
  };
  render(<>{content(close)}</>, host);
  return { close, host };
}

export interface ConfirmOptions {
  title: string;
  message?: string;
  confirmText?: string;
  cancelText?: string;
  /** No cancel button, no close button, Escape does nothing. */
  cancellable?: boolean;
  /** Show a cancel button (default: when cancellable). An alert has none. */
  showCancel?: boolean;
  /** Close when answered (the default); otherwise the caller closes it with the returned
   *  handle's `close`. */
  closeOnAnswer?: boolean;
}

/** Asks a yes/no question: true on confirm, false on cancel. */
export function confirmModal(o: ConfirmOptions): Promise<boolean> & { close: () => void } {
  let handle: { close: () => void } = { close: () => {} };
  const cancellable = o.cancellable ?? true;
  const closeOnAnswer = o.closeOnAnswer ?? true;
  const answer = new Promise<boolean>((resolve) => {
    handle = openModal((close) => {
      const done = (yes: boolean) => {
        if (closeOnAnswer) close();
        resolve(yes);
      };
      return (
        <Modal title={o.title} onClose={cancellable ? () => done(false) : undefined} className="tessera-confirm">
          {o.message && <p class="tessera-modal-message">{o.message}</p>}
          <div class="tessera-modal-actions">
            {cancellable && (o.showCancel ?? true) && (
              <button type="button" class="tessera-button tessera-button-secondary" onClick={() => done(false)}>
                {o.cancelText ?? m.CANCEL}
              </button>
            )}
            <button type="button" class="tessera-button" onClick={() => done(true)}>
              {o.confirmText ?? m.OK}
            </button>
          </div>
        </Modal>
      );
    });
  });
  return Object.assign(answer, { close: () => handle.close() });
}

/** An alert: a title and a message, one button. */
export function alertModal(title: string, message: string): Promise<boolean> {
  return confirmModal({ title, message, cancellable: true, showCancel: false, confirmText: m.OK });
}
