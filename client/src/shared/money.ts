// Minor units as the visitor reads them, in the store's locale.

export function minorDigits(currency: string): number {
  return currency.toUpperCase() === "JPY" ? 0 : 2;
}

export function formatMoney(cents: number, currency: string, locale: string): string {
  const digits = minorDigits(currency);
  const amount = cents / 10 ** digits;
  try {
    return new Intl.NumberFormat(locale, {
      style: "currency",
      currency,
      minimumFractionDigits: digits,
      maximumFractionDigits: digits,
    }).format(amount);
  } catch {
    return `${currency} ${amount.toFixed(digits)}`;
  }
}
