import { Heading } from "../ui/page";
export default function Screen(_: { id?: string }) {
  return <Heading title="inventory">inventory</Heading>;
}
