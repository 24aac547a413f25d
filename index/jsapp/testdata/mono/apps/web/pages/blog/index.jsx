export default function Blog() {
  return <ul />
}
