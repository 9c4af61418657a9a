import { createPersonHandler, listPeopleHandler } from "@/server/http/people-handlers";
import { asPerson } from "@/server/http/person";

export const runtime = "nodejs";
export const dynamic = "force-dynamic";

/** GET /api/v1/people → { people } (an admin's session) */
export const GET = asPerson(function GET(req: Request) {
  return listPeopleHandler(req);
});

/** POST /api/v1/people { name, login, password, role } → 201 { id, login } (an admin's session) */
export const POST = asPerson(function POST(req: Request) {
  return createPersonHandler(req);
});
