import { expect, type Page } from "@playwright/test";

/** Signs in through the real OpenID flow: the app's login entry → the provider's form → back to `returnTo`. */
export async function signInAs(page: Page, username: string, returnTo = "/"): Promise<void> {
  await page.goto(
    `/auth/login?login_hint=${encodeURIComponent(username)}&returnTo=${encodeURIComponent(returnTo)}`,
  );
  await page.locator('input[name="username"]').fill(username);
  await page.locator('input[name="password"]').fill(username);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith("/idp")),
    page.locator('form button[type="submit"], form input[type="submit"]').first().click(),
  ]);
  await expect(page.getByTestId("whoami")).toBeVisible();
}

export async function signOut(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(/\/auth\/signin/);
}
