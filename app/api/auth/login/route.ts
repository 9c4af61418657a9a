import { loginHandler } from "@/server/http/auth";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/auth/login { password } → the session cookie (see server/auth/). */
export const POST = loginHandler;
