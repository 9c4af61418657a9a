import { createTokenHandler } from "@/server/http/people-handlers";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** POST /api/v1/tokens { name } → 201 { token, id, name, prefix }: a token acting as the signed-in person */
export const POST = asPerson(function POST(req: Request) {
  return createTokenHandler(req);
});
