using System;

namespace Shop
{
    /// <summary>A cart.</summary>
    public class Cart
    {
        public const int MaxItems = 50;
        private int count, limit;
        /// <summary>The owner.</summary>
        public string Owner { get; set; }
        public event EventHandler Changed;

        public void Add(int n)
        {
            int local = n;
            count += local;
        }
    }

    public enum Status { Open, Paid = 2 }

    public struct Line { public int Qty; }
}
