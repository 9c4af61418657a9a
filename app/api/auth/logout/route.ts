import { logoutHandler } from "@/server/http/auth";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/auth/logout → the session ends (deleted from the store) and its cookie is cleared. */
export const POST = logoutHandler;
