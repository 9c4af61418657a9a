import { loginHandler } from "@/server/auth/http";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/auth/login { password } → the session cookie (see server/auth/). */
export const POST = loginHandler;
