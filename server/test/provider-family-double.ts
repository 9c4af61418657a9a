/**
 * TEST DOUBLE: a third provider family ("acme"), registered only by tests, to show that a family the code
 * was not written for gets its own key and address from its descriptor (server/chat/providers/families.ts)
 * and never another family's. Nothing in the product registers it.
 */
import { type ProviderFamily, registerProviderFamily } from "../chat/providers/families";

export const ACME_FAMILY: ProviderFamily = {
  id: "acme",
  label: "Acme (test double)",
  remote: true,
  env: { apiKey: "MEMO_ACME_API_KEY", baseUrl: "MEMO_ACME_BASE_URL" },
  defaultBaseUrl: "https://api.acme.test/v2",
  withoutBaseUrl: "default-address",
};

/** A remote family with no default address: until a base URL is set, nothing may go anywhere. */
export const BARE_FAMILY: ProviderFamily = {
  id: "bare",
  label: "Bare (test double)",
  remote: true,
  env: { apiKey: "MEMO_BARE_API_KEY", baseUrl: "MEMO_BARE_BASE_URL" },
  defaultBaseUrl: null,
  withoutBaseUrl: "nowhere",
};

export function registerTestFamilies(): void {
  registerProviderFamily(ACME_FAMILY);
  registerProviderFamily(BARE_FAMILY);
}
