export default function Modal() {
  return null
}
